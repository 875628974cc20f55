//! Media that would be refused is never sent: a file that is not whole (cut
//! off, a checksum that does not match, its closing structure missing) is
//! refused by the pipeline and becomes a note in a request, never an
//! attachment. The files of `tests/data/adversarial/` are made by
//! `media_support::adversarial` (`UPDATE_ADVERSARIAL=1` writes them again).
#![cfg(feature = "media")]

#[path = "media_support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use image::codecs::gif::GifEncoder;
use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::PngEncoder;
use image::codecs::webp::WebPEncoder;
use image::{DynamicImage, ExtendedColorType, Frame, ImageEncoder, RgbaImage};
use proptest::prelude::*;
use support::*;
use tool_carrier::media::{
    check_whole, prepare, Budget, Damage, Loaded, MediaError, MediaType, MemoryCache, Origin,
    Policy,
};
use tool_carrier::provider::{build_request, NoteReason, Options, Provider};
use tool_carrier::roots::Roots;

fn folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/adversarial")
}

fn shipped(name: &str) -> Vec<u8> {
    std::fs::read(folder().join(name)).unwrap()
}

fn refused(bytes: Vec<u8>, policy: &Policy) -> MediaError {
    match prepare(bytes, policy, Budget::ANTHROPIC) {
        Ok(p) => panic!("sent: {:?}", p.facts()),
        Err(e) => e,
    }
}

/// The damage of a [`MediaError::Corrupt`] of type `media_type`, which
/// must read "corrupt or truncated".
fn damage(err: MediaError, media_type: MediaType) -> Damage {
    let text = err.to_string();
    assert!(
        text.starts_with(&format!("corrupt or truncated {}: ", media_type.name())),
        "{text}"
    );
    match err {
        MediaError::Corrupt {
            media_type: t,
            damage,
        } if t == media_type => damage,
        other => panic!("{other:?}"),
    }
}

// ---- each kind of damage, refused ----

#[test]
fn a_truncated_800x600_png_is_refused_not_sent_unchanged() {
    let png = truncated_png();
    assert_eq!(png.len(), 20_000);
    let d = damage(refused(png, &Policy::default()), MediaType::Png);
    // Cut inside a chunk: the chunk and where it starts are named.
    match &d {
        Damage::Truncated { part, at, end } => {
            assert!(part.ends_with(" chunk") && *at < 20_000, "{d}");
            assert_eq!(*end, 20_000);
        }
        other => panic!("{other:?}"),
    }
    assert!(d.to_string().ends_with("is cut off at byte 20000"), "{d}");
}

#[test]
fn a_flipped_byte_in_an_idat_chunk_is_a_crc_mismatch_at_that_chunk() {
    let png = crc_mismatch_png();
    let idat = png_chunk_at(&png, b"IDAT").unwrap();
    let err = refused(png, &Policy::default());
    assert_eq!(
        err.to_string(),
        format!("corrupt or truncated PNG: IDAT chunk CRC mismatch at byte {idat}")
    );
    assert_eq!(
        damage(err, MediaType::Png),
        Damage::CrcMismatch {
            chunk: *b"IDAT",
            at: idat
        }
    );
}

#[test]
fn a_jpeg_without_eoi_is_refused() {
    let d = damage(
        refused(jpeg_without_eoi(), &Policy::default()),
        MediaType::Jpeg,
    );
    assert!(
        matches!(
            d,
            Damage::Missing {
                part: "EOI marker",
                ..
            }
        ),
        "{d:?}"
    );
}

#[test]
fn a_gif_without_its_trailer_is_refused() {
    let gif = gif_without_trailer();
    let len = gif.len();
    let d = damage(refused(gif, &Policy::default()), MediaType::Gif);
    assert_eq!(
        d,
        Damage::Missing {
            part: "trailer (0x3B)",
            at: len
        }
    );
}

#[test]
fn a_webp_with_a_short_riff_length_is_refused() {
    let d = damage(
        refused(webp_with_short_riff(), &Policy::default()),
        MediaType::Webp,
    );
    // `image` writes one VP8L chunk: the RIFF form ends inside it.
    assert!(
        matches!(&d, Damage::Truncated { part, at: 12, .. } if part == "VP8L chunk"),
        "{d:?}"
    );
}

#[test]
fn a_webp_cut_short_of_its_riff_length_is_refused() {
    let mut w = webp(&DynamicImage::ImageRgb8(photo(32, 24, 7)));
    w.pop();
    let len = w.len();
    let d = damage(refused(w, &Policy::default()), MediaType::Webp);
    assert_eq!(
        d,
        Damage::Truncated {
            part: "RIFF form".into(),
            at: 0,
            end: len
        }
    );
}

#[test]
fn the_fourteen_byte_fake_pdf_is_refused() {
    assert_eq!(FAKE_PDF.len(), 14);
    let err = refused(FAKE_PDF.to_vec(), &Policy::default());
    assert_eq!(
        err.to_string(),
        "corrupt or truncated PDF: no %%EOF at or after byte 0"
    );
}

#[test]
fn a_pdf_without_eof_is_refused() {
    let d = damage(
        refused(pdf_without_eof(), &Policy::default()),
        MediaType::Pdf,
    );
    assert!(matches!(d, Damage::Missing { part: "%%EOF", .. }), "{d:?}");
}

// ---- images that are decoded: the same words ----

/// Within 200 px, so the 300 px images below are decoded.
fn small_box() -> Policy {
    Policy::default().with_max_dim(200)
}

#[test]
fn a_truncated_png_to_resize_is_refused_before_decoding() {
    let mut png = png_rgb(&photo(300, 300, 3));
    png.truncate(png.len() * 2 / 3);
    let d = damage(refused(png, &small_box()), MediaType::Png);
    assert!(matches!(d, Damage::Truncated { .. }), "{d:?}");
}

#[test]
fn a_jpeg_to_resize_without_eoi_is_refused_though_its_decoder_would_fill_in() {
    let mut j = jpeg(&photo(300, 300, 4), 85);
    j.truncate(j.len() * 2 / 3);
    let d = damage(refused(j, &small_box()), MediaType::Jpeg);
    assert!(matches!(d, Damage::Missing { .. }), "{d:?}");
}

#[test]
fn a_decoder_error_on_a_whole_png_is_corrupt_or_truncated() {
    // Every chunk whole and its CRC right, the zlib stream inside garbage.
    let mut png = png_rgb(&photo(300, 300, 5));
    let idat = png_chunk_at(&png, b"IDAT").unwrap();
    let len = u32::from_be_bytes(png[idat..idat + 4].try_into().unwrap()) as usize;
    for (i, b) in png[idat + 8..idat + 8 + len].iter_mut().enumerate() {
        *b = (i * 151 % 253) as u8;
    }
    let crc = crc32fast::hash(&png[idat + 4..idat + 8 + len]);
    png[idat + 8 + len..idat + 12 + len].copy_from_slice(&crc.to_be_bytes());
    assert_eq!(check_whole(&png, MediaType::Png), Ok(()));
    let d = damage(refused(png, &small_box()), MediaType::Png);
    assert!(matches!(d, Damage::Undecodable(_)), "{d:?}");
}

#[test]
fn a_truncated_bmp_is_corrupt_or_truncated() {
    // BMP is always decoded (sent as PNG): its decoder is its check.
    let mut b = bmp(&photo(40, 30, 6));
    b.truncate(b.len() / 2);
    let d = damage(refused(b, &Policy::default()), MediaType::Bmp);
    assert!(matches!(d, Damage::Undecodable(_)), "{d:?}");
}

// ---- whole files pass ----

fn rgba(width: u32, height: u32) -> RgbaImage {
    DynamicImage::ImageRgb8(photo(width, height, 8)).to_rgba8()
}

/// Valid files of every type, written by `image`'s encoders (and by
/// jpeg-encoder, the pipeline's JPEG writer, baseline and progressive).
fn valid_files() -> Vec<(MediaType, Vec<u8>)> {
    let rgb = photo(48, 32, 9);
    let (w, h) = (rgb.width(), rgb.height());
    let mut png = Vec::new();
    PngEncoder::new(&mut png)
        .write_image(rgb.as_raw(), w, h, ExtendedColorType::Rgb8)
        .unwrap();
    let mut jpg = Vec::new();
    JpegEncoder::new_with_quality(&mut jpg, 80)
        .write_image(rgb.as_raw(), w, h, ExtendedColorType::Rgb8)
        .unwrap();
    let mut progressive = Vec::new();
    let mut enc = jpeg_encoder::Encoder::new(&mut progressive, 80);
    enc.set_progressive(true);
    enc.encode(
        rgb.as_raw(),
        w as u16,
        h as u16,
        jpeg_encoder::ColorType::Rgb,
    )
    .unwrap();
    let mut restarts = Vec::new();
    let mut enc = jpeg_encoder::Encoder::new(&mut restarts, 80);
    enc.set_restart_interval(2);
    enc.encode(
        rgb.as_raw(),
        w as u16,
        h as u16,
        jpeg_encoder::ColorType::Rgb,
    )
    .unwrap();
    let mut animated = Vec::new();
    {
        let mut enc = GifEncoder::new(&mut animated);
        enc.encode_frame(Frame::new(rgba(24, 16))).unwrap();
        enc.encode_frame(Frame::new(rgba(24, 16))).unwrap();
    }
    let mut webp = Vec::new();
    WebPEncoder::new_lossless(&mut webp)
        .write_image(rgba(w, h).as_raw(), w, h, ExtendedColorType::Rgba8)
        .unwrap();
    vec![
        (MediaType::Png, png),
        (MediaType::Png, png16(20, 10)),
        (MediaType::Jpeg, jpg),
        (MediaType::Jpeg, progressive),
        (MediaType::Jpeg, restarts),
        (MediaType::Jpeg, jpeg_oriented(&rgb, 6)),
        (MediaType::Gif, animated),
        (MediaType::Gif, gif(20, 10, 1)),
        (MediaType::Webp, webp),
        (MediaType::Pdf, one_page_pdf("whole")),
    ]
}

fn valid() -> &'static [(MediaType, Vec<u8>)] {
    static VALID: OnceLock<Vec<(MediaType, Vec<u8>)>> = OnceLock::new();
    VALID.get_or_init(valid_files)
}

#[test]
fn valid_png_jpeg_gif_webp_and_pdf_pass_and_are_sent() {
    for (t, bytes) in valid() {
        assert_eq!(check_whole(bytes, *t), Ok(()), "{t}");
        let p = prepare(bytes.clone(), &Policy::default(), Budget::ANTHROPIC)
            .unwrap_or_else(|e| panic!("{t}: {e}"));
        assert!(!p.reencoded, "{t}");
    }
}

#[test]
fn what_the_pipeline_writes_is_whole() {
    let policy = Policy::default().with_max_dim(40);
    for (t, bytes) in valid() {
        let p = prepare(bytes.clone(), &policy, Budget::ANTHROPIC).unwrap();
        assert_eq!(check_whole(&p.bytes, p.media_type), Ok(()), "{t}");
    }
    let p = prepare(bmp(&photo(30, 20, 1)), &policy, Budget::ANTHROPIC).unwrap();
    assert_eq!(check_whole(&p.bytes, p.media_type), Ok(()));
}

// ---- the shipped files ----

#[test]
fn the_shipped_adversarial_files_are_each_refused_as_corrupt_or_truncated() {
    if std::env::var_os("UPDATE_ADVERSARIAL").is_some() {
        std::fs::create_dir_all(folder()).unwrap();
        for (name, bytes) in adversarial() {
            std::fs::write(folder().join(name), bytes).unwrap();
        }
    }
    for (name, _) in adversarial() {
        let bytes = shipped(name);
        let err = refused(bytes, &Policy::default());
        assert!(
            err.to_string().starts_with("corrupt or truncated "),
            "{name}: {err}"
        );
    }
    assert_eq!(shipped("fake.pdf"), FAKE_PDF);
    let png = shipped("truncated.png");
    assert_eq!(png.len(), 20_000);
    assert_eq!(&png[16..24], &[0, 0, 3, 32, 0, 0, 2, 88]); // 800×600
}

// ---- the cache ----

#[test]
fn a_corrupt_source_is_never_cached_and_is_refused_every_time() {
    let cache = MemoryCache::new(1 << 20);
    for _ in 0..2 {
        let loaded = Loaded::new(shipped("truncated.png"), Origin::Other);
        let err = loaded
            .prepare_cached(
                &Policy::default(),
                Budget::ANTHROPIC,
                &[MediaType::Png],
                &cache,
            )
            .unwrap_err();
        assert!(matches!(err, MediaError::Corrupt { .. }), "{err}");
        assert!(cache.is_empty());
    }
}

// ---- in a request ----

#[test]
fn a_truncated_png_and_a_fake_pdf_become_notes_in_an_anthropic_request() {
    let carrier = serde_json::json!({
        "tool_call_id": "c1",
        "content": "Here are the screenshot and the report.",
        "attachments": [
            {"kind": "image", "target": "truncated.png"},
            {"kind": "document", "target": "fake.pdf"},
        ],
    });
    let call = serde_json::json!({
        "content": null,
        "tool_calls": [{"id": "c1", "name": "export", "arguments": "{}"}],
    });
    let messages = [
        ("user", "Export the panel.".to_owned()),
        ("assistant", call.to_string()),
        ("tool", carrier.to_string()),
    ];
    let roots = Roots::new([folder()]).unwrap();
    let options = Options::new().with_policy(Policy::default().with_roots(roots));
    let request = build_request(Provider::Anthropic, &messages, &options).unwrap();
    let report = &request.report;
    assert_eq!((report.images, report.documents), (0, 0));
    assert_eq!(report.notes.len(), 2, "{:?}", report.notes);
    for (note, what) in report.notes.iter().zip(["PNG", "PDF"]) {
        assert_eq!(note.reason, NoteReason::Media);
        let expected = format!("corrupt or truncated {what}");
        assert!(note.text.contains(&expected), "{}", note.text);
        assert!(request.json().contains(&expected));
    }
    let body = request.json();
    for block in [r#""type":"image""#, r#""type":"document""#, r#""base64""#] {
        assert!(!body.contains(block), "{block} in {body}");
    }
}

// ---- any cut ----

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_cut_of_a_valid_file_fails_and_the_whole_file_passes(
        which in any::<prop::sample::Index>(),
        cut in any::<prop::sample::Index>(),
    ) {
        // Images only: a PDF may end right after `%%EOF`, without a line end.
        let files: Vec<_> = valid().iter().filter(|(t, _)| t.is_image()).collect();
        let (t, bytes) = files[which.index(files.len())];
        prop_assert_eq!(check_whole(bytes, *t), Ok(()));
        let n = cut.index(bytes.len());
        let result = check_whole(&bytes[..n], *t);
        prop_assert!(result.is_err(), "{} cut at {} of {} passed", t, n, bytes.len());
        // What is reported lies within the bytes looked at.
        let offset = result.unwrap_err().offset().unwrap();
        prop_assert!(offset <= n, "offset {} past {}", offset, n);
    }

    #[test]
    fn checking_arbitrary_bytes_never_panics(
        bytes in proptest::collection::vec(any::<u8>(), 0..256),
        prefix in 0usize..6,
    ) {
        let heads: [&[u8]; 6] = [
            b"\x89PNG\r\n\x1a\n", b"\xff\xd8", b"GIF89a", b"RIFF\x10\0\0\0WEBP", b"%PDF-1.", b"BM",
        ];
        let bytes = [heads[prefix], &bytes].concat();
        for t in MediaType::ALL {
            let _ = check_whole(&bytes, t).map_err(|d| d.to_string());
        }
    }
}
