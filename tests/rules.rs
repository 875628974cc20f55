//! The API rules of `tool_carrier::rules`: each one fires on a body that
//! breaks it, and no rule goes without such a case.
#![cfg(feature = "media")]

#[path = "provider_support/mod.rs"]
mod support;

use std::collections::HashSet;

use base64::Engine;
use serde_json::{json, Value};
use support::png;
use tool_carrier::facts::{Family, IdRule, Profile};
use tool_carrier::media::MediaType;
use tool_carrier::provider::Provider;
use tool_carrier::rules::{check, check_json, rules, Basis, Target};

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

fn png_b64(w: u32, h: u32) -> String {
    B64.encode(png(w, h, 1))
}

fn ids(provider: Provider, model: &str, body: &Value) -> Vec<&'static str> {
    check(&Target::new(provider, model), body)
        .iter()
        .map(|v| v.rule.id)
        .collect()
}

// ---- valid bodies: each breaks nothing ----

fn anthropic_ok() -> Value {
    json!({
        "model": "claude-sonnet-5", "max_tokens": 100,
        "tools": [{"name": "shot", "input_schema": {"type": "object"}}],
        "messages": [
            {"role": "user", "content": "Go."},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "shot", "input": {}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": [
                    {"type": "text", "text": "ok"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png_b64(4, 3)}}]},
                {"type": "text", "text": "and then"}]}
        ]
    })
}

fn chat_ok() -> Value {
    json!({
        "model": "gpt-5",
        "tools": [{"type": "function", "function": {"name": "shot", "parameters": {"type": "object", "properties": {"tags": {"type": "array", "items": {}}}}}}],
        "tool_choice": "none",
        "messages": [
            {"role": "user", "content": "Go."},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "shot", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "ok"},
            {"role": "user", "content": [
                {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{}", png_b64(4, 3))}},
                {"type": "file", "file": {"filename": "a.pdf", "file_data": format!("data:application/pdf;base64,{}", B64.encode(b"%PDF-1.4\n"))}}]}
        ]
    })
}

fn responses_ok() -> Value {
    json!({
        "model": "gpt-5",
        "tools": [{"type": "function", "name": "shot", "parameters": {"type": "object"}, "strict": false}],
        "input": [
            {"type": "message", "role": "user", "content": "Go."},
            {"type": "function_call", "call_id": "c1", "name": "shot", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "ok"}
        ]
    })
}

fn gemini_ok() -> Value {
    json!({
        "tools": [{"functionDeclarations": [{"name": "shot", "parametersJsonSchema": {"type": "object"}}]}],
        "toolConfig": {"functionCallingConfig": {"mode": "NONE"}},
        "contents": [
            {"role": "user", "parts": [{"text": "Go."}]},
            {"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "shot", "args": {}}, "thoughtSignature": "skip_thought_signature_validator"}]},
            {"role": "user", "parts": [{"functionResponse": {"id": "c1", "name": "shot", "response": {"output": "ok"},
                "parts": [{"inlineData": {"mimeType": "image/png", "data": png_b64(4, 3)}}]}}]}
        ]
    })
}

fn bedrock_ok() -> Value {
    json!({
        "toolConfig": {"tools": [{"toolSpec": {"name": "shot", "inputSchema": {"json": {"type": "object"}}}}]},
        "messages": [
            {"role": "user", "content": [{"text": "Go."}]},
            {"role": "assistant", "content": [{"toolUse": {"toolUseId": "c.1:a", "name": "shot", "input": {}}}]},
            {"role": "user", "content": [{"toolResult": {"toolUseId": "c.1:a", "content": [
                {"text": "ok"},
                {"image": {"format": "png", "source": {"bytes": png_b64(4, 3)}}},
                {"document": {"format": "pdf", "name": "report (1)", "source": {"bytes": B64.encode(b"%PDF-1.4\n")}}}]}}]}
        ]
    })
}

fn ollama_ok() -> Value {
    json!({
        "model": "qwen3-vl", "stream": false,
        "messages": [
            {"role": "user", "content": "Go."},
            {"role": "assistant", "tool_calls": [{"function": {"name": "shot", "arguments": {}}}]},
            {"role": "tool", "tool_name": "shot", "content": "ok"},
            {"role": "user", "content": "the shot", "images": [png_b64(4, 3)]}
        ]
    })
}

const CLAUDE: &str = "claude-sonnet-5";
const NOVA: &str = "us.amazon.nova-pro-v1:0";
const CLAUDE_BEDROCK: &str = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
const LLAMA: &str = "us.meta.llama3-2-90b-instruct-v1:0";
const G3: &str = "gemini-3.8-flash";

#[test]
fn valid_bodies_break_no_rule() {
    assert_eq!(
        ids(Provider::Anthropic, CLAUDE, &anthropic_ok()),
        Vec::<&str>::new()
    );
    assert_eq!(
        ids(Provider::OpenAiChat, "gpt-5", &chat_ok()),
        Vec::<&str>::new()
    );
    assert_eq!(
        ids(Provider::OpenAiResponses, "gpt-5", &responses_ok()),
        Vec::<&str>::new()
    );
    assert_eq!(ids(Provider::Gemini, G3, &gemini_ok()), Vec::<&str>::new());
    assert_eq!(
        ids(Provider::Bedrock, NOVA, &bedrock_ok()),
        Vec::<&str>::new()
    );
    assert_eq!(
        ids(Provider::Ollama, "qwen3-vl", &ollama_ok()),
        Vec::<&str>::new()
    );
    // A one-hour cache point, for a Claude that keeps one.
    let hour = with(
        bedrock_ok(),
        "/system",
        json!([{"text": "s"}, {"cachePoint": {"type": "default", "ttl": "1h"}}]),
    );
    assert_eq!(
        ids(Provider::Bedrock, CLAUDE_BEDROCK, &hour),
        Vec::<&str>::new()
    );
    // One text is the user's message.
    let text = with(without(responses_ok(), "tools"), "/input", "Hi".into());
    assert_eq!(
        ids(Provider::OpenAiResponses, "gpt-5", &text),
        Vec::<&str>::new()
    );
    // A turn continuing a stored response answers the calls stored with
    // it: its outputs have no call in `input`.
    for continued in ["previous_response_id", "conversation"] {
        let mut body = with(responses_ok(), &format!("/{continued}"), "resp_1".into());
        body["input"] = json!([{"type": "function_call_output", "call_id": "c1", "output": "ok"}]);
        assert_eq!(
            ids(Provider::OpenAiResponses, "gpt-5", &body),
            Vec::<&str>::new()
        );
    }
}

/// A body broken one way: (provider, model, body, the rule it breaks).
type Case = (Provider, &'static str, Value, &'static str);

/// `body` with the value at `pointer` set (added, when its parent is an
/// object without that member).
fn with(mut body: Value, pointer: &str, value: Value) -> Value {
    let (parent, key) = pointer.rsplit_once('/').unwrap();
    let parent = body
        .pointer_mut(parent)
        .unwrap_or_else(|| panic!("{pointer}"));
    match parent {
        Value::Object(map) => {
            map.insert(key.to_owned(), value);
        }
        Value::Array(items) => items[key.parse::<usize>().unwrap()] = value,
        _ => panic!("{pointer}"),
    }
    body
}

fn without(mut body: Value, key: &str) -> Value {
    body.as_object_mut().unwrap().remove(key);
    body
}

fn many_images(n: usize, w: u32, h: u32) -> Vec<Value> {
    let data = png_b64(w, h);
    (0..n)
        .map(|_| json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}))
        .collect()
}

fn cases() -> Vec<Case> {
    use Provider::*;
    let a = anthropic_ok;
    let c = chat_ok;
    let r = responses_ok;
    let g = gemini_ok;
    let b = bedrock_ok;
    let o = ollama_ok;
    vec![
        // Every API: a request with no conversation.
        (Anthropic, CLAUDE, with(a(), "/messages", json!([])), "anthropic/message-count"),
        (Anthropic, CLAUDE, with(a(), "/messages", Value::Array(vec![json!({"role": "user", "content": "x"}); 100_001])), "anthropic/message-count"),
        (OpenAiChat, "gpt-5", with(without(c(), "tools"), "/messages", json!([])), "openai-chat/message-count"),
        (OpenAiResponses, "gpt-5", with(r(), "/input", json!([])), "openai-responses/input-present"),
        (Gemini, "gemini-3.8-flash", with(g(), "/contents", json!([])), "gemini/contents-present"),
        (Bedrock, "anthropic.claude-sonnet-4-5-20250929-v1:0", with(b(), "/messages", json!([])), "bedrock/message-count"),
        (Ollama, "qwen3-vl", with(o(), "/messages", json!([])), "ollama/messages-present"),
        // Generation settings out of their documented ranges.
        (Anthropic, CLAUDE, with(a(), "/temperature", json!(1.5)), "anthropic/temperature"),
        (Anthropic, CLAUDE, without(a(), "max_tokens"), "anthropic/max-tokens"),
        (Anthropic, CLAUDE, with(with(a(), "/max_tokens", json!(2000)), "/thinking", json!({"type": "enabled", "budget_tokens": 2000})), "anthropic/thinking-budget"),
        (Anthropic, CLAUDE, with(with(a(), "/temperature", json!(0.5)), "/thinking", json!({"type": "enabled", "budget_tokens": 1024})), "anthropic/thinking-sampling"),
        (OpenAiChat, "gpt-5", with(c(), "/temperature", json!(2.5)), "openai-chat/sampling"),
        (OpenAiResponses, "gpt-5", with(r(), "/top_p", json!(1.5)), "openai-responses/sampling"),
        (Gemini, G3, with(g(), "/generationConfig", json!({"temperature": 3})), "gemini/sampling"),
        (Gemini, G3, with(g(), "/generationConfig", json!({"thinkingConfig": {"thinkingLevel": "low", "thinkingBudget": 1024}})), "gemini/thinking-level-or-budget"),
        (Bedrock, CLAUDE_BEDROCK, with(b(), "/inferenceConfig", json!({"temperature": 1.5})), "bedrock/inference-config"),
        (Bedrock, CLAUDE_BEDROCK, with(b(), "/additionalModelRequestFields", json!({"thinking": {"type": "enabled", "budget_tokens": 100}})), "bedrock/thinking-budget"),
        // Members the SDKs' request types do not list, in the body and in
        // its settings' objects.
        (Anthropic, CLAUDE, with(a(), "/x_future_member", json!(1)), "anthropic/members"),
        (Anthropic, CLAUDE, with(a(), "/output_config", json!({"effort": "low", "verbosity": "low"})), "anthropic/members"),
        (OpenAiChat, "gpt-5", with(c(), "/stream_options", json!({"include_usage": true, "usage": true})), "openai-chat/members"),
        (OpenAiResponses, "gpt-5", with(r(), "/reasoning", json!({"effort": "low", "summary_mode": "auto"})), "openai-responses/members"),
        (Gemini, G3, with(g(), "/generationConfig", json!({"thinkingConfig": {"thinkingBudget": 1024, "budget": 1}})), "gemini/members"),
        (Gemini, G3, with(g(), "/generation_config", json!({})), "gemini/members"),
        (Bedrock, CLAUDE_BEDROCK, with(b(), "/inferenceConfig", json!({"maxTokens": 10, "topK": 5})), "bedrock/members"),
        (Ollama, "qwen3-vl", with(o(), "/keepalive", json!("5m")), "ollama/members"),
        // Settings that go with tools, or with a stream.
        (OpenAiChat, "gpt-5", with(without(c(), "tools"), "/parallel_tool_calls", json!(false)), "openai-chat/parallel-needs-tools"),
        (OpenAiChat, "gpt-5", with(c(), "/stream_options", json!({"include_usage": true})), "openai-chat/stream-options-need-stream"),
        (OpenAiResponses, "gpt-5", with(without(r(), "tools"), "/parallel_tool_calls", json!(true)), "openai-responses/parallel-needs-tools"),
        // A choice names a declared tool; metadata and the user's id in
        // the lengths the SDKs type.
        (Anthropic, CLAUDE, with(a(), "/tool_choice", json!({"type": "tool", "name": "nope"})), "anthropic/tool-choice-declared"),
        (OpenAiChat, "gpt-5", with(c(), "/tool_choice", json!({"type": "function", "function": {"name": "nope"}})), "openai-chat/tool-choice-declared"),
        (OpenAiChat, "gpt-5", with(c(), "/metadata", json!({"run": "x".repeat(513)})), "openai-chat/metadata"),
        (OpenAiChat, "gpt-5", with(c(), "/metadata", Value::Object((0..17).map(|i| (format!("k{i}"), json!("v"))).collect())), "openai-chat/metadata"),
        (OpenAiChat, "gpt-5", with(c(), "/safety_identifier", json!("u".repeat(129))), "openai-chat/safety-identifier"),
        (OpenAiResponses, "gpt-5", with(r(), "/tool_choice", json!({"type": "function", "name": "nope"})), "openai-responses/tool-choice-declared"),
        (OpenAiResponses, "gpt-5", with(r(), "/metadata", json!({"k".repeat(65): "v"})), "openai-responses/metadata"),
        (OpenAiResponses, "gpt-5", with(r(), "/safety_identifier", json!("u".repeat(129))), "openai-responses/safety-identifier"),
        (Gemini, G3, with(g(), "/toolConfig/functionCallingConfig", json!({"mode": "ANY", "allowedFunctionNames": ["nope"]})), "gemini/allowed-functions-declared"),
        (Bedrock, CLAUDE_BEDROCK, with(b(), "/toolConfig/toolChoice", json!({"tool": {"name": "nope"}})), "bedrock/tool-choice-declared"),
        (Bedrock, CLAUDE_BEDROCK, with(b(), "/requestMetadata", json!({"no <tags>": "v"})), "bedrock/request-metadata"),
        (Bedrock, CLAUDE_BEDROCK, with(b(), "/requestMetadata", json!({})), "bedrock/request-metadata"),
        // Structured outputs: each API's schema limits, JSON mode's word,
        // and what a format goes with.
        (Anthropic, CLAUDE, with(a(), "/output_config", json!({"format": {"type": "json_schema", "schema": {"type": "object", "properties": {}}}})), "anthropic/output-schema"),
        (Anthropic, CLAUDE, with(a(), "/output_config", json!({"format": {"type": "json_schema", "schema": {"type": "object", "additionalProperties": false, "properties": {"n": {"type": "integer", "minimum": 0}}}}})), "anthropic/output-schema-keywords"),
        (Anthropic, CLAUDE, with(with(a(), "/output_config", json!({"format": {"type": "json_schema", "schema": {"type": "object", "additionalProperties": false}}})), "/messages", json!([{"role": "user", "content": "Go."}, {"role": "assistant", "content": "{"}])), "anthropic/output-format-prefill"),
        (OpenAiChat, "gpt-5", with(c(), "/response_format", json!({"type": "json_schema", "json_schema": {"name": "a verdict", "schema": {"type": "object"}}})), "openai-chat/response-format-name"),
        (OpenAiChat, "gpt-5", with(c(), "/response_format", json!({"type": "json_object"})), "openai-chat/json-mode-word"),
        (OpenAiChat, "gpt-5", with(c(), "/response_format", json!({"type": "json_schema", "json_schema": {"name": "v", "strict": true, "schema": {"type": "object", "additionalProperties": false, "properties": {"a": {"type": "string"}}}}})), "openai-chat/strict-schema"),
        (OpenAiResponses, "gpt-5", with(r(), "/text", json!({"format": {"type": "json_schema", "name": "v".repeat(65), "schema": {"type": "object"}}})), "openai-responses/response-format-name"),
        (OpenAiResponses, "gpt-5", with(r(), "/text", json!({"format": {"type": "json_object"}})), "openai-responses/json-mode-word"),
        (OpenAiResponses, "gpt-5", with(r(), "/text", json!({"format": {"type": "json_schema", "name": "v", "strict": true, "schema": {"anyOf": [{"type": "object"}]}}})), "openai-responses/strict-schema"),
        (Gemini, G3, with(g(), "/generationConfig", json!({"responseJsonSchema": {"type": "object"}})), "gemini/response-json-schema"),
        (Gemini, G3, with(g(), "/generationConfig", json!({"responseMimeType": "application/json", "responseJsonSchema": {"type": "object"}, "responseSchema": {"type": "OBJECT"}})), "gemini/response-json-schema"),
        (Bedrock, CLAUDE_BEDROCK, with(b(), "/outputConfig", json!({"textFormat": {"type": "json_schema", "structure": {"jsonSchema": {"schema": "{\"type\": \"object\"", "name": "v"}}}})), "bedrock/output-schema"),
        (Bedrock, CLAUDE_BEDROCK, with(b(), "/outputConfig", json!({"textFormat": {"type": "json_schema", "structure": {"jsonSchema": {"schema": "{\"type\": \"object\", \"properties\": {}}", "name": "v"}}}})), "bedrock/output-schema"),
        (Ollama, "qwen3-vl", with(o(), "/format", json!("yaml")), "ollama/format"),
        // Explicit cache breakpoints: GPT-5.6 and later, mode "explicit".
        (OpenAiResponses, "gpt-5.5", with(r(), "/input/0/content", json!([{"type": "input_text", "text": "Go.", "prompt_cache_breakpoint": {"mode": "explicit"}}])), "openai-responses/cache-breakpoint"),
        (OpenAiResponses, "gpt-5.6", with(r(), "/input/0/content", json!([{"type": "input_text", "text": "Go.", "prompt_cache_breakpoint": {"mode": "implicit"}}])), "openai-responses/cache-breakpoint"),
        (Anthropic, CLAUDE, with(without(a(), "tools"), "/tool_choice", json!({"type": "auto"})), "anthropic/tool-choice-needs-tools"),
        // Anthropic
        (Anthropic, CLAUDE, without(a(), "tools"), "anthropic/tools-declared"),
        (Anthropic, CLAUDE, with(a(), "/system", Value::Array(vec![json!({"type": "text", "text": "s", "cache_control": {"type": "ephemeral"}}); 5])), "anthropic/cache-breakpoints"),
        (Anthropic, CLAUDE, with(a(), "/messages/2/content/0/tool_use_id", "t2".into()), "anthropic/results-follow-calls"),
        (Anthropic, CLAUDE, with(a(), "/messages/2/content", json!([{"type": "text", "text": "x"}, {"type": "tool_result", "tool_use_id": "t1"}])), "anthropic/results-follow-calls"),
        (Anthropic, CLAUDE, with(a(), "/messages/2/content/0/tool_use_id", "t2".into()), "anthropic/result-answers-call"),
        (Anthropic, CLAUDE, with(a(), "/tools/0/name", "a.b".into()), "anthropic/tool-name"),
        (Anthropic, CLAUDE, with(a(), "/tools", json!([{"name": "shot", "input_schema": {"type": "object"}}, {"name": "shot", "input_schema": {"type": "object"}}])), "anthropic/tool-name"),
        (Anthropic, CLAUDE, with(a(), "/messages/1/content/0/id", "t:1".into()), "anthropic/tool-use-id"),
        (Anthropic, CLAUDE, with(a(), "/tools/0/input_schema", json!({"properties": {}})), "anthropic/input-schema"),
        (Anthropic, CLAUDE, with(a(), "/messages/1/content", json!([{"type": "tool_use", "id": "t1", "name": "shot", "input": {}}, {"type": "tool_use", "id": "t1", "name": "shot", "input": {}}])), "anthropic/tool-use-id-unique"),
        (Anthropic, CLAUDE, with(a(), "/tools/0/name", "other".into()), "anthropic/calls-declared"),
        (Anthropic, "claude-haiku-4-5", with(a(), "/messages/0/content", Value::Array(many_images(101, 4, 3))), "anthropic/image-count"),
        (Anthropic, CLAUDE, with(a(), "/messages/0/content", Value::Array(many_images(21, 2001, 2))), "anthropic/image-size"),
        (Anthropic, CLAUDE, with(a(), "/messages/0/content", Value::Array(many_images(1, 8001, 2))), "anthropic/image-size"),
        (Anthropic, CLAUDE, with(a(), "/messages/2/content/0/content/1/source/media_type", "image/jpeg".into()), "anthropic/image-bytes"),
        (Anthropic, CLAUDE, with(a(), "/messages/2/content/0/content/0/text", "".into()), "anthropic/no-empty-text"),
        (Anthropic, CLAUDE, with(a(), "/messages/0/content", " \n ".into()), "anthropic/no-empty-text"),
        (Anthropic, CLAUDE, with(a(), "/tools/0/input_schema/anyOf", json!([{"required": []}])), "anthropic/input-schema"),
        // OpenAI Chat
        (OpenAiChat, "gpt-5", with(c(), "/messages/2/role", "user".into()), "openai-chat/results-follow-calls"),
        (OpenAiChat, "gpt-5", with(c(), "/messages/2/tool_call_id", "c2".into()), "openai-chat/tool-answers-call"),
        (OpenAiChat, "gpt-5", without(c(), "tools"), "openai-chat/tool-choice-needs-tools"),
        (OpenAiChat, "gpt-5", with(c(), "/messages/1/tool_calls/0/function/name", "a.b".into()), "openai-chat/function-name"),
        (OpenAiChat, "gpt-5", with(c(), "/tools/0/function/name", "x".repeat(65).into()), "openai-chat/function-name"),
        (OpenAiChat, "gpt-5", with(c(), "/messages/1/tool_calls/0/id", "c".repeat(41).into()), "openai-chat/tool-call-id"),
        (OpenAiChat, "gpt-5", with(c(), "/tools/0/function/parameters/properties/tags", json!({"type": "array"})), "openai-chat/array-items"),
        (OpenAiChat, "gpt-5", with(c(), "/tools/0/function/parameters", json!({"type": "string"})), "openai-chat/parameters-object"),
        (OpenAiChat, "gpt-5", with(c(), "/tools/0/function/parameters/enum", json!([{}])), "openai-chat/parameters-object"),
        (OpenAiChat, "gpt-5", with(c(), "/messages/2/content", json!([{"type": "image_url", "image_url": {"url": "https://x/a.png"}}])), "openai-chat/media-in-user-messages"),
        (OpenAiChat, "gpt-5", with(c(), "/messages/3/content/0/image_url/url", "data:image/bmp;base64,AAAA".into()), "openai-chat/images"),
        (OpenAiChat, "gpt-5", with(c(), "/messages/3/content/1/file/file_data", "data:text/plain;base64,AAAA".into()), "openai-chat/files"),
        // OpenAI Responses
        (OpenAiResponses, "gpt-5", with(r(), "/input/2/call_id", "c2".into()), "openai-responses/output-has-call"),
        (OpenAiResponses, "gpt-5", with(r(), "/input/2/call_id", "c2".into()), "openai-responses/call-has-output"),
        (OpenAiResponses, "gpt-5", with(without(r(), "tools"), "/model", "gpt-5".into()).as_object().cloned().map(|mut m| { m.insert("tool_choice".into(), "none".into()); Value::Object(m) }).unwrap(), "openai-responses/tool-choice-needs-tools"),
        (OpenAiResponses, "gpt-5", with(r(), "/tools/0/name", "a b".into()), "openai-responses/function-name"),
        (OpenAiResponses, "gpt-5", with(with(r(), "/input/1/call_id", "c".repeat(65).into()), "/input/2/call_id", "c".repeat(65).into()), "openai-responses/call-id"),
        (OpenAiResponses, "gpt-5", with(r(), "/tools/0/parameters", json!({"type": "object", "properties": {"x": {"type": ["array", "null"]}}})), "openai-responses/array-items"),
        (OpenAiResponses, "gpt-5", with(r(), "/tools/0/parameters", json!({"properties": {}})), "openai-responses/parameters-object"),
        (OpenAiResponses, "gpt-5", with(r(), "/input/2/output", json!([{"type": "input_image", "image_url": format!("data:image/png;base64,{}", "A".repeat(20_971_520))}])), "openai-responses/data-length"),
        (OpenAiResponses, "gpt-5", with(r(), "/input/0/content", json!([{"type": "input_file", "filename": "a.pdf", "file_data": format!("data:application/pdf;base64,{}", "A".repeat(73_400_320))}])), "openai-responses/data-length"),
        // Gemini
        (Gemini, G3, with(g(), "/contents/2/parts", json!([])), "gemini/response-count"),
        (Gemini, G3, with(g(), "/contents/2/parts/0/functionResponse/id", "c2".into()), "gemini/response-matches-call"),
        (Gemini, G3, with(g(), "/contents/0/role", "model".into()), "gemini/call-turn-follows-user"),
        (Gemini, G3, with(g(), "/tools/0/functionDeclarations/0/name", "other".into()), "gemini/calls-declared"),
        (Gemini, G3, with(without(g(), "tools"), "/contents/1/parts/0/functionCall/name", "shot".into()), "gemini/tool-config-needs-declarations"),
        (Gemini, G3, with(g(), "/tools/0/functionDeclarations/0/name", "1shot".into()), "gemini/function-name"),
        (Gemini, G3, with(g(), "/tools/0/functionDeclarations/0/parameters", json!({"type": "OBJECT"})), "gemini/one-parameters-schema"),
        (Gemini, G3, with(g(), "/tools/0/functionDeclarations/0/parametersJsonSchema", json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/a", "title": "A"}}})), "gemini/one-parameters-schema"),
        (Gemini, G3, without(g()["contents"][1]["parts"][0].clone(), "thoughtSignature").pipe(|p| with(g(), "/contents/1/parts/0", p)), "gemini/thought-signature"),
        (Gemini, "gemini-2.5-flash-lite", g(), "gemini/media-in-function-response"),
        (Gemini, G3, with(g(), "/contents/2/parts/0/functionResponse/parts/0/inlineData/mimeType", "image/gif".into()), "gemini/media-in-function-response"),
        (Gemini, G3, with(g(), "/contents/0/parts", json!([{"inlineData": {"mimeType": "image/gif", "data": "AAAA"}}])), "gemini/inline-types"),
        (Gemini, G3, with(g(), "/contents/0/parts", json!([{"inlineData": {"mimeType": "application/pdf", "data": B64.encode(vec![b'%'; 50_000_001])}}])), "gemini/inline-size"),
        // Bedrock
        (Bedrock, NOVA, without(b(), "toolConfig"), "bedrock/tool-config"),
        (Bedrock, "meta.llama3-2-90b-instruct-v1:0", with(b(), "/system", json!([{"text": "s"}, {"cachePoint": {"type": "default"}}])), "bedrock/cache-points"),
        (Bedrock, CLAUDE_BEDROCK, with(b(), "/system", Value::Array(vec![json!({"cachePoint": {"type": "default"}}); 5])), "bedrock/cache-points"),
        (Bedrock, "anthropic.claude-sonnet-4-20250514-v1:0", with(b(), "/system", json!([{"text": "s"}, {"cachePoint": {"type": "default", "ttl": "1h"}}])), "bedrock/cache-ttl"),
        (Bedrock, CLAUDE_BEDROCK, with(b(), "/system", json!([{"text": "s"}, {"cachePoint": {"type": "default", "ttl": "2h"}}])), "bedrock/cache-ttl"),
        (Bedrock, "anthropic.claude-3-5-sonnet-20241022-v2:0", with(b(), "/system", json!([{"text": "s"}, {"cachePoint": {"type": "default", "ttl": "1h"}}])), "bedrock/cache-ttl"),
        (Bedrock, NOVA, with(b(), "/system", json!([{"text": "s"}, {"cachePoint": {"type": "default", "ttl": "1h"}}])), "bedrock/cache-ttl"),
        (Bedrock, NOVA, with(b(), "/toolConfig/tools/0/toolSpec/name", "other".into()), "bedrock/calls-declared"),
        (Bedrock, CLAUDE_BEDROCK, with(b(), "/additionalModelRequestFields", json!({"tools": [{"type": "bash_20250124", "name": "shot"}]})), "bedrock/tool-names-unique"),
        (Bedrock, NOVA, with(with(b(), "/messages/1/content/0/toolUse/toolUseId", "c 1".into()), "/messages/2/content/0/toolResult/toolUseId", "c 1".into()), "bedrock/names-and-ids"),
        (Bedrock, NOVA, with(b(), "/toolConfig/tools/0/toolSpec/name", "a.b".into()), "bedrock/names-and-ids"),
        (Bedrock, NOVA, with(b(), "/messages/2/content/0/toolResult/toolUseId", "zz".into()), "bedrock/results-follow-calls"),
        (Bedrock, NOVA, with(b(), "/messages/1/content", json!([{"toolUse": {"toolUseId": "c.1:a", "name": "shot", "input": {}}}, {"toolUse": {"toolUseId": "c.1:a", "name": "shot", "input": {}}}])), "bedrock/tool-use-id-unique"),
        (Bedrock, NOVA, with(b(), "/messages/0/role", "assistant".into()), "bedrock/alternating-roles"),
        (Bedrock, NOVA, with(b(), "/messages/0/content", Value::Array((0..21).map(|_| json!({"image": {"format": "png", "source": {"bytes": png_b64(2, 2)}}})).collect())), "bedrock/media-counts"),
        // 16 images and 5 documents: more than 20, so 2001 px is too wide.
        (Bedrock, CLAUDE_BEDROCK, with(b(), "/messages/0/content", Value::Array(
            std::iter::once(json!({"text": "Go."}))
                .chain((0..15).map(|_| json!({"image": {"format": "png", "source": {"bytes": png_b64(2, 2)}}})))
                .chain(std::iter::once(json!({"image": {"format": "png", "source": {"bytes": png_b64(2001, 4)}}})))
                .chain((0..5).map(|i| json!({"document": {"format": "pdf", "name": format!("d{i}"), "source": {"bytes": B64.encode(b"%PDF-1.4\n")}}})))
                .collect())), "bedrock/many-media-size"),
        (Bedrock, NOVA, with(b(), "/messages/1/content", json!([{"toolUse": {"toolUseId": "c.1:a", "name": "shot", "input": {}}}, {"image": {"format": "png", "source": {"bytes": png_b64(2, 2)}}}])), "bedrock/media-in-user-messages"),
        (Bedrock, LLAMA, b(), "bedrock/media-in-tool-result"),
        (Bedrock, NOVA, with(b(), "/messages/0/content", json!([{"text": "a"}, {"document": {"format": "pdf", "name": "Report (1)", "source": {"bytes": "JQ=="}}}])), "bedrock/document-name"),
        (Bedrock, NOVA, with(b(), "/messages/2/content/0/toolResult/content/2/document/name", "a_b".into()), "bedrock/document-name"),
        (Bedrock, NOVA, with(b(), "/messages/2/content/0/toolResult/content/0", json!({"json": {}})), "bedrock/document-needs-text"),
        (Bedrock, NOVA, with(b(), "/messages/0/content/0/text", " \n".into()), "bedrock/no-blank-text"),
        // Ollama
        (Ollama, "qwen3-vl", with(o(), "/messages/3/images/0", "data:image/png;base64,AAAA".into()), "ollama/images-base64"),
        (Ollama, "qwen3-vl", with(o(), "/messages/2/tool_name", "other".into()), "ollama/tool-name"),
        (Ollama, "qwen3-vl", with(o(), "/messages/1/tool_calls/0/function/arguments", "{}".into()), "ollama/arguments-object"),
        // Output tokens over the model's documented limit.
        (Anthropic, CLAUDE, with(a(), "/max_tokens", json!(10_000_000)), "anthropic/max-tokens-cap"),
        (OpenAiChat, "gpt-5", with(c(), "/max_completion_tokens", json!(10_000_000)), "openai-chat/max-tokens-cap"),
        (OpenAiResponses, "gpt-5", with(r(), "/max_output_tokens", json!(10_000_000)), "openai-responses/max-output-tokens-cap"),
        (Gemini, G3, with(g(), "/generationConfig", json!({"maxOutputTokens": 10_000_000})), "gemini/max-output-tokens-cap"),
        (Bedrock, CLAUDE_BEDROCK, with(b(), "/inferenceConfig", json!({"maxTokens": 10_000_000})), "bedrock/max-tokens-cap"),
        // PDF pages over the request's limit, and an encrypted PDF.
        (Anthropic, "claude-haiku-4-5", with(a(), "/messages/0/content", json!([{"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": pdf_b64(101, false)}}, {"type": "text", "text": "x"}])), "anthropic/pdf-pages"),
        (Anthropic, CLAUDE, with(a(), "/messages/0/content", json!([{"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": pdf_b64(1, true)}}, {"type": "text", "text": "x"}])), "anthropic/pdf-not-encrypted"),
        (OpenAiChat, "gpt-5", with(c(), "/messages/3/content/1/file/file_data", format!("data:application/pdf;base64,{}", pdf_b64(101, false)).into()), "openai-chat/pdf-pages"),
        (OpenAiResponses, "gpt-5", with(r(), "/input/0/content", json!([{"type": "input_file", "filename": "a.pdf", "file_data": format!("data:application/pdf;base64,{}", pdf_b64(101, false))}])), "openai-responses/pdf-pages"),
        (Gemini, G3, with(g(), "/contents/0/parts", json!([{"inlineData": {"mimeType": "application/pdf", "data": pdf_b64(1001, false)}}, {"text": "x"}])), "gemini/pdf-pages"),
        (Bedrock, CLAUDE_BEDROCK, with(b(), "/messages/0/content", json!([{"text": "a"}, {"document": {"format": "pdf", "name": "Report", "source": {"bytes": pdf_b64(101, false)}}}])), "bedrock/pdf-pages"),
    ]
}

/// The base64 of a PDF of `pages` pages, encrypted or not.
fn pdf_b64(pages: u32, encrypted: bool) -> String {
    B64.encode(support::pdf_pages("P", pages, encrypted))
}

trait Pipe: Sized {
    fn pipe<T>(self, f: impl FnOnce(Self) -> T) -> T {
        f(self)
    }
}
impl Pipe for Value {}

#[test]
fn each_broken_body_breaks_its_rule() {
    let mut failures = Vec::new();
    for (provider, model, body, rule) in cases() {
        let found = ids(provider, model, &body);
        if !found.contains(&rule) {
            failures.push(format!("{rule}: not found (found {found:?})"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A Chat Completions body every profile below accepts: images inline,
/// the bridge message before the user message after the results.
fn compatible_ok() -> Value {
    json!({
        "model": "m",
        "tools": [{"type": "function", "function": {"name": "shot", "parameters": {"type": "object", "properties": {"tags": {"type": "array", "items": {}}}}}}],
        "tool_choice": "none",
        "messages": [
            {"role": "user", "content": "Go."},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "aB3dE6gH9", "type": "function", "function": {"name": "shot", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "aB3dE6gH9", "content": "ok"},
            {"role": "assistant", "content": "(tool results received)"},
            {"role": "user", "content": [
                {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{}", png_b64(4, 3))}}]}
        ]
    })
}

/// (profile, body, the rule it breaks) for OpenAI-compatible servers.
fn compatible_cases() -> Vec<(Profile, Value, &'static str)> {
    let k = compatible_ok;
    let generic = Profile::generic;
    let with_profile = |edit: fn(&mut Profile)| {
        let mut p = Profile::generic();
        edit(&mut p);
        p
    };
    let image = || json!({"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{}", png_b64(4, 3))}});
    vec![
        (
            generic(),
            with(k(), "/messages", json!([])),
            "openai-compatible/message-count",
        ),
        (
            generic(),
            with(
                k(),
                "/tool_choice",
                json!({"type": "function", "function": {"name": "nope"}}),
            ),
            "openai-compatible/tool-choice-declared",
        ),
        (
            generic(),
            with(k(), "/messages/2/role", "user".into()),
            "openai-compatible/results-follow-calls",
        ),
        (
            generic(),
            with(k(), "/messages/2/tool_call_id", "zZ3dE6gH9".into()),
            "openai-compatible/tool-answers-call",
        ),
        (
            generic(),
            without(k(), "tools"),
            "openai-compatible/tool-choice-needs-tools",
        ),
        (
            with_profile(|p| p.max_tools = Some(0)),
            k(),
            "openai-compatible/tool-count",
        ),
        (
            generic(),
            with(k(), "/tools/0/function/name", "a.b".into()),
            "openai-compatible/function-name",
        ),
        (
            generic(),
            with(
                k(),
                "/tools/0/function/parameters/properties/tags",
                json!({"type": "array"}),
            ),
            "openai-compatible/array-items",
        ),
        (
            generic(),
            with(
                k(),
                "/tools/0/function/parameters",
                json!({"type": "string"}),
            ),
            "openai-compatible/parameters-object",
        ),
        (
            with_profile(|p| p.tools = false),
            k(),
            "openai-compatible/no-tools",
        ),
        (
            with_profile(|p| p.vision = false),
            k(),
            "openai-compatible/no-vision",
        ),
        (
            generic(),
            with(k(), "/messages/2/content", json!([image()])),
            "openai-compatible/media-placement",
        ),
        (
            generic(),
            with(k(), "/messages/3/role", "user".into()),
            "openai-compatible/user-after-tool",
        ),
        (
            generic(),
            with(
                k(),
                "/messages/4/content/0/image_url/url",
                "https://x/a.png".into(),
            ),
            "openai-compatible/image-types",
        ),
        (
            with_profile(|p| p.image_types = vec![MediaType::Jpeg]),
            k(),
            "openai-compatible/image-types",
        ),
        (
            with_profile(|p| p.max_images = Some(1)),
            with(k(), "/messages/4/content", json!([image(), image()])),
            "openai-compatible/image-caps",
        ),
        (
            with_profile(|p| p.max_image_bytes = Some(10)),
            k(),
            "openai-compatible/image-caps",
        ),
        (
            with_profile(|p| p.max_request_image_bytes = Some(100)),
            with(k(), "/messages/4/content", json!([image(), image()])),
            "openai-compatible/image-caps",
        ),
        (
            with_profile(|p| p.max_dim = Some(3)),
            k(),
            "openai-compatible/image-caps",
        ),
        (
            generic(),
            with(
                k(),
                "/messages/4/content/0",
                json!({"type": "file", "file": {"filename": "a.pdf", "file_data": "data:application/pdf;base64,AAAA"}}),
            ),
            "openai-compatible/files",
        ),
        (
            with_profile(|p| p.tool_call_ids = IdRule::Alphanumeric9),
            with(
                with(k(), "/messages/1/tool_calls/0/id", "call_1".into()),
                "/messages/2/tool_call_id",
                "call_1".into(),
            ),
            "openai-compatible/tool-call-id",
        ),
        (
            generic(),
            with(
                with(k(), "/messages/1/tool_calls/0/id", "c".repeat(41).into()),
                "/messages/2/tool_call_id",
                "c".repeat(41).into(),
            ),
            "openai-compatible/tool-call-id",
        ),
    ]
}

#[test]
fn each_broken_compatible_body_breaks_its_rule_and_the_valid_one_none() {
    let found = |p: &Profile, body: &Value| -> Vec<&'static str> {
        let target = Target::new(Provider::OpenAiCompatible, "m").with_profile(p);
        check(&target, body).iter().map(|v| v.rule.id).collect()
    };
    assert_eq!(
        found(&Profile::generic(), &compatible_ok()),
        Vec::<&str>::new()
    );
    // Generic is also what a target without a profile is checked for.
    assert!(ids(Provider::OpenAiCompatible, "m", &compatible_ok()).is_empty());
    let mut mistral = Profile::builtin("mistral").unwrap();
    mistral.max_images = None;
    assert_eq!(found(&mistral, &compatible_ok()), Vec::<&str>::new());
    for (profile, body, rule) in compatible_cases() {
        let ids = found(&profile, &body);
        assert!(ids.contains(&rule), "{rule}: found {ids:?}");
    }
}

#[test]
fn every_rule_has_a_case_that_breaks_it() {
    let mut tested: HashSet<&str> = cases().iter().map(|c| c.3).collect();
    tested.extend(compatible_cases().iter().map(|c| c.2));
    // The size rules are checked on the serialized text: see below.
    let on_text = [
        "anthropic/request-size",
        "openai-chat/request-size",
        "openai-responses/request-size",
        "gemini/request-size",
        "bedrock/request-size",
    ];
    for provider in Provider::ALL {
        for rule in rules(provider) {
            assert!(
                tested.contains(rule.id) || on_text.contains(&rule.id),
                "{} has no breaking case",
                rule.id
            );
        }
    }
}

#[test]
fn request_size_rules_read_the_serialized_length() {
    for (provider, model, limit, id) in [
        (
            Provider::Anthropic,
            CLAUDE,
            32_000_000,
            "anthropic/request-size",
        ),
        (
            Provider::Bedrock,
            CLAUDE_BEDROCK,
            20_000_000,
            "bedrock/request-size",
        ),
        (Provider::Gemini, G3, 100_000_000, "gemini/request-size"),
    ] {
        let pad = " ".repeat(limit);
        let text = format!("{{\"messages\":[]{pad}}}");
        let found: Vec<_> = check_json(&Target::new(provider, model), &text)
            .unwrap()
            .into_iter()
            .map(|v| v.rule.id)
            .collect();
        assert!(found.contains(&id), "{provider}: {found:?}");
        let found = check_json(&Target::new(provider, model), "{\"messages\":[]}").unwrap();
        assert!(found.iter().all(|v| v.rule.id != id));
    }
}

#[test]
fn a_family_given_for_an_unknown_bedrock_id_is_used() {
    let arn = "arn:aws:bedrock:us-east-1:111122223333:application-inference-profile/p1";
    let body = bedrock_ok();
    let unknown = check(&Target::new(Provider::Bedrock, arn), &body);
    assert!(unknown
        .iter()
        .any(|v| v.rule.id == "bedrock/media-in-tool-result"));
    let claude = check(
        &Target::new(Provider::Bedrock, arn).with_family(Family::Claude),
        &body,
    );
    assert!(claude.is_empty(), "{claude:?}");
}

#[test]
fn violations_say_where_and_why() {
    let v = &check(
        &Target::new(Provider::Anthropic, CLAUDE),
        &without(anthropic_ok(), "tools"),
    )[0];
    assert_eq!(v.at, "$");
    assert_eq!(v.rule.basis, Basis::Observed);
    assert_eq!(
        v.to_string(),
        format!(
            "anthropic/tools-declared at $: tool_use or tool_result blocks, and no tools ({}; {})",
            v.rule.says, v.rule.source
        )
    );
}
