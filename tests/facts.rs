//! The provider and model facts: every built-in value dated and sourced,
//! today's corrections each checked against the provider's own worked
//! examples, defaults that stay served, a user's file laid over the data,
//! and the warnings for stale or unknown models.
#![cfg(feature = "media")]

use tool_carrier::facts::Profile;
use tool_carrier::facts::{Date, Facts, ModelWarning, Sizing, Syntax};
use tool_carrier::media::View;
use tool_carrier::provider::{Options, Provider};

fn date(s: &str) -> Date {
    s.parse().unwrap()
}

/// The day the data was last read; tests compare against written dates,
/// never the clock.
const READ: &str = "2026-12-02";

#[test]
fn every_built_in_value_has_a_source_and_a_date() {
    let facts = Facts::builtin();
    let mut values = 0;
    for (key, p) in facts.provenances() {
        values += 1;
        let source = p
            .source
            .as_deref()
            .unwrap_or_else(|| panic!("{key}: no source"));
        assert!(
            source.starts_with("https://"),
            "{key}: the source {source:?} is not a URL"
        );
        let read = p.read.unwrap_or_else(|| panic!("{key}: no date read"));
        assert!(read <= date(READ), "{key}: read on {read}, after {READ}");
    }
    assert!(values > 500, "only {values} values");
}

#[test]
fn a_value_without_a_source_is_found() {
    // The same walk, on a file whose second value names none.
    let facts = Facts::builtin()
        .layered(
            "[models.a]\nsource = \"https://example.com\"\nread = 2026-12-01\ncontext = 1\n[models.b]\ncontext = 2\n",
            Syntax::Toml,
            "mine.toml",
        )
        .unwrap();
    let a = facts.provenance("models.a.context").unwrap();
    assert_eq!(a.source.as_deref(), Some("https://example.com"));
    let b = facts.provenance("models.b.context").unwrap();
    assert_eq!((b.source.as_deref(), b.read), (Some("mine.toml"), None));
}

/// Defaults must be served for at least 90 days from the reading: no
/// documented shutdown before this date, written here so the test does
/// not start failing by itself.
const SERVED_UNTIL: &str = "2027-03-01";

#[test]
fn every_default_model_is_known_and_served_past_march_2027() {
    let facts = Facts::builtin();
    for provider in Provider::ALL {
        let model = facts.default_model(provider);
        let api = facts.api(provider);
        match facts.model(provider, model) {
            Some(m) => {
                if let Some(on) = m.retires_at(provider) {
                    assert!(
                        on >= date(SERVED_UNTIL),
                        "{provider}: {model} retires on {on}"
                    );
                }
            }
            None => assert!(
                !api.documented_models,
                "{provider}: the default {model} is not in the data"
            ),
        }
        assert_eq!(
            facts.check_model(provider, model, date(READ)),
            None,
            "{provider}"
        );
    }
    // A profile's default is the server's model: where the data knows it
    // (by its id past a vendor prefix: `openai/gpt-5.5`), it too must be
    // served.
    for (name, profile) in facts.profiles() {
        let id = profile.default_model.rsplit('/').next().unwrap();
        for provider in Provider::ALL {
            if let Some(m) = facts.model(provider, id) {
                if let Some(on) = m.retires_at(provider) {
                    assert!(
                        on >= date(SERVED_UNTIL),
                        "profile {name}: {id} retires on {on}"
                    );
                }
            }
        }
    }
}

#[test]
fn claude_counts_its_vision_pages_tables() {
    // https://platform.claude.com/docs/en/build-with-claude/vision (read
    // 2026-12-01): the tables for models before 4.7 and for 4.7 and later.
    let facts = Facts::builtin();
    let standard = |w, h| facts.image_tokens(Provider::Anthropic, "claude-haiku-4-5", w, h);
    for ((w, h), tokens) in [
        ((200, 200), 64),
        ((1000, 1000), 1296),
        ((1092, 1092), 1521),
        ((1920, 1080), 1560),
        ((2000, 1500), 1564),
        ((3840, 2160), 1560),
    ] {
        assert_eq!(standard(w, h), Some(tokens), "{w}×{h}");
    }
    // 1568×30 was 63 by the old w·h/750; the patches make it 56 × 2.
    assert_eq!(standard(1568, 30), Some(112));
    for model in [
        "claude-opus-4-7",
        "claude-opus-4-8",
        "claude-fable-5",
        "claude-mythos-5",
        "claude-sonnet-5",
        "claude-sonnet-5-5",
        "claude-opus-5-5",
    ] {
        let high = |w, h| facts.image_tokens(Provider::Anthropic, model, w, h);
        assert_eq!(high(1920, 1080), Some(2691), "{model}");
        assert_eq!(high(2000, 1500), Some(3888), "{model}");
        assert_eq!(high(3840, 2160), Some(4784), "{model}");
    }
    // "downscaled to 1456x819, 1270x952 and 1456x819": the resizer rounds
    // 952.5 up, so the second lands a pixel narrower at the same tokens.
    let view = facts.view(Provider::Anthropic, "claude-haiku-4-5").unwrap();
    assert_eq!(view.fit(1920, 1080), (1456, 819));
    assert_eq!(view.fit(2000, 1500), (1269, 952));
    assert_eq!(view.fit(1075, 1520), (924, 1307)); // the A4 scan
    let high = facts.view(Provider::Anthropic, "claude-opus-4-8").unwrap();
    assert_eq!(high.fit(3840, 2160), (2576, 1449));
    // Claude on Bedrock counts the same.
    assert_eq!(
        facts.image_tokens(
            Provider::Bedrock,
            "us.anthropic.claude-sonnet-5",
            3840,
            2160
        ),
        Some(4784)
    );
}

#[test]
fn million_token_claude_models_take_600_images_and_bedrock_20() {
    let facts = Facts::builtin();
    for model in [
        "claude-mythos-5",
        "claude-fable-5",
        "claude-sonnet-5-5",
        "claude-opus-4-6",
    ] {
        assert_eq!(facts.max_images(Provider::Anthropic, model), 600, "{model}");
    }
    assert_eq!(
        facts.max_images(Provider::Anthropic, "claude-haiku-4-5"),
        100
    );
    // An id the data does not know: the family's 100.
    assert_eq!(facts.max_images(Provider::Anthropic, "claude-next-9"), 100);
    assert_eq!(
        facts.max_images(Provider::Bedrock, "us.anthropic.claude-sonnet-5"),
        20
    );
}

#[test]
fn gemini_2_tiles_by_the_crop_unit_of_googles_example() {
    // https://ai.google.dev/gemini-api/docs/image-understanding: 960×540
    // has a crop unit of 360, so 3 × 2 tiles of 258 tokens.
    let facts = Facts::builtin();
    let tokens = |w, h| facts.image_tokens(Provider::Gemini2, "gemini-2.5-flash-lite", w, h);
    assert_eq!(tokens(960, 540), Some(258 * 6));
    assert_eq!(tokens(384, 384), Some(258));
    // Gemini 3 gives an image 1120 tokens at its default resolution.
    assert_eq!(
        facts.image_tokens(Provider::Gemini, "gemini-3.8-flash", 4000, 3000),
        Some(1120)
    );
    // The generation decides, whichever name was used.
    assert_eq!(
        facts.image_tokens(Provider::Gemini, "gemini-2.5-flash-lite", 960, 540),
        Some(258 * 6)
    );
}

#[test]
fn openai_counts_by_the_sizing_guides_examples() {
    // https://developers.openai.com/api/docs/guides/images-vision (read
    // 2026-12-01).
    let facts = Facts::builtin();
    let tokens = |m, w, h| facts.image_tokens(Provider::OpenAiResponses, m, w, h);
    // Tiles: 1024×1024 is 768×768, 4 tiles.
    assert_eq!(tokens("gpt-4o", 1024, 1024), Some(85 + 170 * 4));
    assert_eq!(tokens("gpt-5", 1024, 1024), Some(70 + 140 * 4));
    // Patches: the guide's 1800×2400 under 1,536 patches shrinks to
    // 1056×1408, 33 × 44 patches; GPT-5 mini bills them × 1.2.
    assert_eq!(
        tokens("gpt-5-mini", 1800, 2400),
        Some((33 * 44 * 1200_u64).div_ceil(1000))
    );
    // GPT-4.1 mini: 6,144 patches, so 1024×1024 is 32 × 32, × 1.62.
    assert_eq!(tokens("gpt-4.1-mini", 1024, 1024), Some(1659));
    // GPT-5.5 at auto: 10,000 patches and 6000 px.
    assert_eq!(
        facts.view(Provider::OpenAiChat, "gpt-5.5"),
        Some(View::new(6000).with_max_patches(10_000))
    );
    // An id the data does not know counts as GPT-4o.
    assert_eq!(tokens("my-azure-deployment", 1024, 1024), Some(765));
    // A dated snapshot is its model; a longer version number is not.
    assert!(facts
        .model(Provider::OpenAiChat, "gpt-4o-2024-08-06")
        .is_some());
    assert!(facts.model(Provider::OpenAiChat, "gpt-5.45").is_none());
}

#[test]
fn corrected_defaults_are_the_current_models() {
    let facts = Facts::builtin();
    // 1. gpt-5 shuts down on 2026-12-11: warned of, and not the default.
    assert_eq!(facts.default_model(Provider::OpenAiChat), "gpt-5.5");
    match facts.check_model(Provider::OpenAiChat, "gpt-5", date(READ)) {
        Some(ModelWarning::Retiring { on, .. }) => assert_eq!(on, date("2026-12-11")),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        facts.check_model(Provider::OpenAiChat, "gpt-5-2025-08-07", date("2026-12-12")),
        Some(ModelWarning::Retired { .. })
    ));
    // 2. DeepSeek's chat names are retired; its flash model takes images.
    let deepseek = Profile::builtin("deepseek").unwrap();
    assert_eq!(deepseek.default_model, "deepseek-flash");
    assert!(deepseek.vision);
    // 3. and 4. Groq's and xAI's retired defaults.
    assert_eq!(
        Profile::builtin("groq").unwrap().default_model,
        "qwen/qwen3.6-27b"
    );
    assert_eq!(Profile::builtin("xai").unwrap().default_model, "grok-4.3");
    assert_eq!(
        Profile::builtin("openrouter").unwrap().default_model,
        "openai/gpt-5.5"
    );
    // 5. Sonnet 4.5 was retired by Anthropic on 2026-11-30.
    assert_ne!(
        facts.default_model(Provider::Bedrock),
        "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
    );
    match facts.check_model(
        Provider::Anthropic,
        "claude-sonnet-4-5-20250929",
        date(READ),
    ) {
        Some(ModelWarning::Retired { on, successor, .. }) => {
            assert_eq!(on, date("2026-11-30"));
            assert_eq!(successor.as_deref(), Some("claude-sonnet-5-5"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn unknown_and_unserved_models_are_warned_of_where_models_are_documented() {
    let facts = Facts::builtin();
    let today = date(READ);
    let w = facts
        .check_model(Provider::Anthropic, "claude-next-9", today)
        .unwrap();
    let text = w.to_string();
    assert!(
        text.starts_with(
            "unknown model \"claude-next-9\" for anthropic: assumed the claude family's facts"
        ),
        "{text}"
    );
    assert!(
        text.contains("1568 px") && text.contains("100 images"),
        "{text}"
    );
    // Served, but not by this API with tool calls.
    assert!(matches!(
        facts.check_model(Provider::OpenAiChat, "gpt-5.6", today),
        Some(ModelWarning::NotServed { .. })
    ));
    // Servers that run what the user loads have no list to miss.
    assert_eq!(
        facts.check_model(Provider::Ollama, "my-own-model", today),
        None
    );
    assert_eq!(
        facts.check_model(Provider::OpenAiCompatible, "x", today),
        None
    );
    // Bedrock: read past the inference-profile prefix.
    assert_eq!(
        facts.check_model(Provider::Bedrock, "global.anthropic.claude-opus-5-5", today),
        None
    );
}

/// A model of one's own: its processing size and limits.
const MINE: &str = r#"
[models.claude-test-9]
source = "https://example.com/claude-test-9"
read = 2026-12-01
family = "claude"
apis = ["anthropic"]
max_images = 2
sizing = { scheme = "claude-patches", long_edge = 1000, max_patches = 1000, patch = 28 }
"#;

#[test]
fn a_users_file_adds_a_model_and_changes_its_facts() {
    let facts = Facts::builtin()
        .layered(MINE, Syntax::Toml, "mine.toml")
        .unwrap();
    assert_eq!(facts.max_images(Provider::Anthropic, "claude-test-9"), 2);
    assert_eq!(
        facts.view(Provider::Anthropic, "claude-test-9"),
        Some(View::new(1000).with_max_patches(1000).with_patch(28))
    );
    assert_eq!(
        facts.check_model(Provider::Anthropic, "claude-test-9", date(READ)),
        None
    );
    // The built-in data is unchanged.
    assert!(Facts::builtin()
        .model(Provider::Anthropic, "claude-test-9")
        .is_none());
    // The same in JSON.
    let json = r#"{"models": {"claude-test-9": {"family": "claude", "apis": ["anthropic"], "max_images": 2}}}"#;
    let facts = Facts::builtin()
        .layered(json, Syntax::Json, "mine.json")
        .unwrap();
    assert_eq!(facts.max_images(Provider::Anthropic, "claude-test-9"), 2);
    // A changed limit and default.
    let facts = Facts::builtin()
        .layered(
            "[apis.bedrock]\ndefault_model = \"amazon.nova-pro-v1:0\"\n[apis.bedrock.limits]\nmax_images = 10\n",
            Syntax::Toml,
            "mine.toml",
        )
        .unwrap();
    let options = Options::new().with_facts(facts.clone());
    assert_eq!(options.model_for(Provider::Bedrock), "amazon.nova-pro-v1:0");
    assert_eq!(
        facts.max_images(Provider::Bedrock, "amazon.nova-pro-v1:0"),
        10
    );
    // A profile of one's own, by name.
    let facts = Facts::builtin()
        .layered(
            "[profiles.mine]\nbase_url = \"http://gpu:9000/v1\"\nmax_images = 3\n",
            Syntax::Toml,
            "mine.toml",
        )
        .unwrap();
    let mine = Profile::named(&facts, "mine").unwrap();
    assert_eq!((mine.name.as_str(), mine.max_images), ("mine", Some(3)));
}

#[test]
fn a_bad_file_is_an_error_naming_its_key() {
    let err = |text: &str| {
        Facts::builtin()
            .layered(text, Syntax::Toml, "mine.toml")
            .unwrap_err()
    };
    for (text, key) in [
        ("[models.x]\ncontxt = 1\n", "models.x.contxt"),
        ("[models.x]\ncontext = \"big\"\n", "models.x.context"),
        ("[models.x]\nfamily = \"klaude\"\n", "models.x.family"),
        ("[models.x]\napis = [\"anthropics\"]\n", "models.x.apis"),
        ("[models.x]\nsizing = \"nope\"\n", "models.x.sizing"),
        ("[models.x]\nretires = \"next year\"\n", "models.x.retires"),
        ("[models.x]\ndetail = [\"ultra\"]\n", "models.x.detail"),
        (
            "[models.\"gpt-9.1\"]\nread = \"1 Dec\"\n",
            "models.\"gpt-9.1\".read",
        ),
        (
            "[apis.anthropic.limits]\nmeasure = \"bits\"\n",
            "apis.anthropic.limits.measure",
        ),
        (
            "[apis.anthropic.limits]\nimage_types = [\"tiff\"]\n",
            "apis.anthropic.limits.image_types",
        ),
        ("[apis.claude]\ndefault_model = \"x\"\n", "apis.claude"),
        (
            "[sizings.s]\nscheme = \"gemini-tiles\"\nsmall = 384\ncrop_divisor = 0\ntokens = 1\n",
            "sizings.s",
        ),
        ("[profiles.p]\nmax_dim = 3\n", "profiles.p.max_dim"),
        ("[colours]\nred = 1\n", "colours"),
    ] {
        let e = err(text);
        assert_eq!(e.key(), Some(key), "{text}: {e}");
        assert!(
            e.to_string().starts_with(&format!("facts key `{key}`: ")),
            "{e}"
        );
    }
    let whole = err("[models.x\n");
    assert_eq!(whole.key(), None);
    assert!(whole.to_string().starts_with("facts file: "), "{whole}");
}

#[test]
fn sizings_serialize_with_their_scheme() {
    let s = Sizing::Fixed {
        tokens: 1120,
        long_edge: None,
    };
    assert_eq!(
        serde_json::to_value(s).unwrap(),
        serde_json::json!({"scheme": "fixed", "tokens": 1120, "long_edge": null})
    );
}
