//! Fixtures for the provider tests, made in code: images and PDFs written
//! at test time, byte for byte the same on every run and every machine (the
//! PNGs use stored deflate blocks, so no compressor version can change
//! them). Included by the other `provider_*` tests with `#[path]`.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};

use tool_carrier::history;
use tool_carrier::history::{AsRecord, Record};
use tool_carrier::media::Policy;
use tool_carrier::provider::{build_request, Options, Provider, Request};
use tool_carrier::roots::Roots;
use tool_carrier::rules::{check_json, Target};

/// A `width`×`height` RGB PNG: a gradient tinted by `seed`, with stored
/// (uncompressed) deflate blocks.
pub fn png(width: u32, height: u32, seed: u8) -> Vec<u8> {
    rgb_png(width, height, |x, y| {
        [
            ((x * 255) / width.max(1)) as u8 ^ seed,
            ((y * 255) / height.max(1)) as u8,
            seed.wrapping_mul(37),
        ]
    })
}

/// A `width`×`height` RGB PNG of pseudo-random pixels: it compresses to
/// nothing, so re-encoding cannot make it small without scaling it.
pub fn noise_png(width: u32, height: u32) -> Vec<u8> {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    rgb_png(width, height, |_, _| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let [a, b, c, ..] = state.to_le_bytes();
        [a, b, c]
    })
}

/// An RGB PNG with stored deflate blocks, each pixel from `pixel(x, y)`.
fn rgb_png(width: u32, height: u32, mut pixel: impl FnMut(u32, u32) -> [u8; 3]) -> Vec<u8> {
    let mut raw = Vec::with_capacity(((width * 3 + 1) * height) as usize);
    for y in 0..height {
        raw.push(0); // filter: none
        for x in 0..width {
            raw.extend_from_slice(&pixel(x, y));
        }
    }
    let mut zlib = vec![0x78, 0x01];
    let blocks: Vec<&[u8]> = raw.chunks(65_535).collect();
    for (i, block) in blocks.iter().enumerate() {
        zlib.push(u8::from(i + 1 == blocks.len()));
        let len = block.len() as u16;
        zlib.extend_from_slice(&len.to_le_bytes());
        zlib.extend_from_slice(&(!len).to_le_bytes());
        zlib.extend_from_slice(block);
    }
    zlib.extend_from_slice(&adler32(&raw).to_be_bytes());
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    png_chunk(&mut out, b"IHDR", &ihdr);
    png_chunk(&mut out, b"IDAT", &zlib);
    png_chunk(&mut out, b"IEND", &[]);
    out
}

fn png_chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32(&out[start..]);
    out.extend_from_slice(&crc.to_be_bytes());
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut table = [0u32; 256];
    for (n, entry) in table.iter_mut().enumerate() {
        let mut c = n as u32;
        for _ in 0..8 {
            c = if c & 1 == 1 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
        *entry = c;
    }
    !bytes.iter().fold(!0u32, |c, &b| {
        table[((c ^ u32::from(b)) & 0xff) as usize] ^ (c >> 8)
    })
}

fn adler32(bytes: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for chunk in bytes.chunks(5552) {
        for &byte in chunk {
            a += u32::from(byte);
            b += a;
        }
        a %= 65_521;
        b %= 65_521;
    }
    (b << 16) | a
}

/// A 1×1 white GIF.
pub const GIF: &[u8] = &[
    0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0, 1, 0, 0x80, 0, 0, 0xff, 0xff, 0xff, 0, 0, 0, 0x2c, 0,
    0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 1, 0, 0x3b,
];

/// A one-page PDF with no content, whole: its cross-reference table gives
/// each object's offset, and `startxref` the table's.
pub fn pdf(title: &str) -> Vec<u8> {
    pdf_pages(title, 1, false)
}

/// A PDF of `pages` empty pages (one page object, the tree's `/Count`
/// saying how many), whole, with a security handler named in its trailer
/// when `encrypted`.
pub fn pdf_pages(title: &str, pages: u32, encrypted: bool) -> Vec<u8> {
    let kids = (0..pages).map(|_| "3 0 R").collect::<Vec<_>>().join(" ");
    let objects = [
        "<</Type /Catalog /Pages 2 0 R>>".to_owned(),
        format!("<</Type /Pages /Kids [{kids}] /Count {pages}>>"),
        "<</Type /Page /Parent 2 0 R /MediaBox [0 0 200 100]>>".to_owned(),
        format!("<</Title ({title})>>"),
    ];
    let encrypt = if encrypted {
        " /Encrypt <</Filter /Standard /V 2 /R 3 /Length 128 /P -4>>"
    } else {
        ""
    };
    let mut pdf = String::from("%PDF-1.4\n");
    let mut xref = String::from("xref\n0 5\n0000000000 65535 f \n");
    for (i, object) in objects.iter().enumerate() {
        xref.push_str(&format!("{:010} 00000 n \n", pdf.len()));
        pdf.push_str(&format!("{} 0 obj {object} endobj\n", i + 1));
    }
    let start = pdf.len();
    pdf.push_str(&xref);
    pdf.push_str(&format!(
        "trailer <</Size 5 /Root 1 0 R /Info 4 0 R{encrypt}>>\nstartxref\n{start}\n%%EOF\n"
    ));
    pdf.into_bytes()
}

/// A folder holding every file the shipped histories and the edge cases
/// name, and one file just outside it.
pub struct Fixture {
    _dir: tempfile::TempDir,
    /// The root (targets resolve inside it).
    pub root: PathBuf,
}

impl Default for Fixture {
    fn default() -> Fixture {
        Fixture::new()
    }
}

impl Fixture {
    pub fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        let write = |rel: &str, bytes: &[u8]| {
            let path = root.join(rel);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, bytes).unwrap();
        };
        write("shots/dashboard.png", &png(16, 10, 1));
        write("shots/panel7.png", &png(12, 8, 2));
        write("shots/editor.png", &png(16, 10, 3));
        write("shots/small.png", &png(4, 3, 4));
        write("shots/not-an-image.png", b"this is text, not an image\n");
        write("reports/incident-42.pdf", &pdf("Incident 42"));
        write("docs/notes.pdf", &pdf("Notes"));
        write("docs/long.pdf", &pdf_pages("Long", 500, false));
        write("docs/short.pdf", &pdf_pages("Short", 30, false));
        fs::write(dir.path().join("outside.png"), png(2, 2, 5)).unwrap();
        Fixture {
            root: root.canonicalize().unwrap(),
            _dir: dir,
        }
    }

    /// Put `bytes` at `rel` inside the root.
    pub fn add(&self, rel: &str, bytes: &[u8]) {
        let path = self.root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, bytes).unwrap();
    }

    /// Options confining targets to this fixture's root.
    pub fn options(&self) -> Options {
        Options::new().with_policy(Policy::default().with_roots(Roots::new([&self.root]).unwrap()))
    }
}

/// The repository's top folder (where `examples/` is), whichever of its
/// packages the test belongs to.
pub fn manifest_dir() -> &'static Path {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.ancestors()
        .find(|dir| dir.join("examples/history.jsonl").is_file())
        .unwrap_or(here)
}

/// A history file of the crate, as records.
pub fn history(rel: &str) -> Vec<Record> {
    let bytes = fs::read(manifest_dir().join(rel)).unwrap();
    history::read(&bytes[..]).unwrap()
}

/// Build a request, and check the body as serialized against every rule
/// of the provider's API: no test body may break one.
pub fn build<M: AsRecord>(provider: Provider, messages: &[M], options: &Options) -> Request {
    let request =
        build_request(provider, messages, options).unwrap_or_else(|e| panic!("{provider}: {e}"));
    assert_follows_rules(&request);
    request
}

/// Every rule of the request's API holds for its serialized body.
pub fn assert_follows_rules(request: &Request) {
    let mut text = Vec::new();
    request.write_compact(&mut text).unwrap();
    let target = Target::of(request);
    let broken = check_json(&target, std::str::from_utf8(&text).unwrap()).unwrap();
    assert!(
        broken.is_empty(),
        "{} ({}) breaks {} rule(s):\n{}",
        request.provider,
        request.model,
        broken.len(),
        broken
            .iter()
            .map(|v| format!("  {v}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// JSON Lines text as records.
pub fn history_lines(lines: &str) -> Vec<Record> {
    history::read(lines.as_bytes()).unwrap()
}

/// Build from JSON Lines text (checked as [`build`] checks).
pub fn build_lines(provider: Provider, lines: &str, options: &Options) -> Request {
    let messages = history::read(lines.as_bytes()).unwrap();
    build(provider, &messages, options)
}

/// A JSON string literal for `s` (for writing history lines in tests).
pub fn lit(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// One history line: `{"role": role, "content": content}`.
pub fn line(role: &str, content: &str) -> String {
    format!("{{\"role\":{},\"content\":{}}}\n", lit(role), lit(content))
}

/// An assistant line with one call per `(id, name)`.
pub fn calls(calls: &[(&str, &str)]) -> String {
    let calls: Vec<serde_json::Value> = calls
        .iter()
        .map(|(id, name)| serde_json::json!({"id": id, "name": name, "arguments": "{}"}))
        .collect();
    line(
        "assistant",
        &serde_json::json!({"content": null, "tool_calls": calls}).to_string(),
    )
}

/// A native carrier line answering `id`, declaring `images`.
pub fn result(id: &str, body: &str, images: &[&str]) -> String {
    let attachments: Vec<serde_json::Value> = images
        .iter()
        .map(|t| serde_json::json!({"kind": "image", "target": t}))
        .collect();
    line(
        "tool",
        &serde_json::json!({"tool_call_id": id, "content": body, "attachments": attachments})
            .to_string(),
    )
}

/// Every string in `value` (depth first).
pub fn strings(value: &serde_json::Value) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::String(s) => out.push(s.clone()),
            serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            serde_json::Value::Object(m) => m.values().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    walk(value, &mut out);
    out
}

/// The pixel size of every PNG a body sends (base64 or data URL).
pub fn png_sizes(request: &tool_carrier::provider::Request) -> Vec<(u32, u32)> {
    use base64::Engine;
    strings(&request.body.to_value())
        .into_iter()
        .filter_map(|s| {
            let b64 = s.strip_prefix("data:image/png;base64,").unwrap_or(&s);
            b64.starts_with("iVBORw0KGgo").then(|| {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(b64)
                    .unwrap();
                let be = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
                (be(16), be(20))
            })
        })
        .collect()
}

/// What one declared image of a test history is ([`shot_rounds`]).
#[derive(Clone, Copy, Debug)]
pub enum Shot {
    /// Wider than every provider's limit (2100 × 24 + seed): decoded,
    /// resized, re-encoded.
    Wide(u8),
    /// Small enough to pass through unchanged (40 × 30 + seed).
    Small(u8),
    /// Pixels that do not compress.
    Noise,
    /// Not an image.
    Text,
    /// A PNG cut off halfway: its header says its size, its pixels fail.
    Cut,
    /// A PDF declared as an image.
    Pdf,
    /// No such file.
    Missing,
}

/// The target of round `i`'s image in [`shot_rounds`].
pub fn shot_target(i: usize) -> String {
    format!("shot-{i}.png")
}

/// A history of one screenshot round per shot, the files in `fixture`.
pub fn shot_rounds(fixture: &Fixture, shots: &[Shot]) -> String {
    let mut history = line("user", "Watch the screen.");
    for (i, shot) in shots.iter().enumerate() {
        let name = shot_target(i);
        match *shot {
            Shot::Wide(seed) => fixture.add(&name, &png(2100, 24 + u32::from(seed), seed)),
            Shot::Small(seed) => fixture.add(&name, &png(40, 30 + u32::from(seed), seed)),
            Shot::Noise => fixture.add(&name, &noise_png(2100, 40)),
            Shot::Text => fixture.add(&name, b"not an image\n"),
            Shot::Cut => {
                let whole = png(300, 200, 9);
                fixture.add(&name, &whole[..whole.len() / 2]);
            }
            Shot::Pdf => fixture.add(&name, &pdf("Shot")),
            Shot::Missing => {}
        }
        let id = format!("c{i}");
        history += &calls(&[(&id, "screenshot")]);
        history += &result(&id, "Took a screenshot.", &[&name]);
    }
    history
}
