//! The tests of the wholeness checks: each format's damage found, and
//! whole files passed.

use super::*;

fn chunk(kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
    let mut c = (data.len() as u32).to_be_bytes().to_vec();
    c.extend_from_slice(kind);
    c.extend_from_slice(data);
    let crc = crc32fast::hash(&c[4..]);
    c.extend_from_slice(&crc.to_be_bytes());
    c
}

/// A 1×1 grey PNG put together chunk by chunk.
fn png_parts() -> Vec<Vec<u8>> {
    let ihdr = [0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0];
    // zlib: a stored block holding the filter byte and one pixel.
    let idat = [
        0x78, 0x01, 0x01, 0x02, 0x00, 0xFD, 0xFF, 0x00, 0x80, 0x00, 0x81, 0x00, 0x81,
    ];
    vec![
        PNG_SIGNATURE.to_vec(),
        chunk(b"IHDR", &ihdr),
        chunk(b"tEXt", b"k\0v"),
        chunk(b"IDAT", &idat),
        chunk(b"IEND", &[]),
    ]
}

fn tiny_png() -> Vec<u8> {
    png_parts().concat()
}

#[test]
fn png_whole_passes_and_trailing_bytes_after_iend_are_ignored() {
    let png = tiny_png();
    assert_eq!(check_whole(&png, MediaType::Png), Ok(()));
    let mut more = png.clone();
    more.extend_from_slice(b"anything after IEND");
    assert_eq!(check_whole(&more, MediaType::Png), Ok(()));
}

#[test]
fn png_every_prefix_fails() {
    let png = tiny_png();
    for n in 0..png.len() {
        assert!(check_whole(&png[..n], MediaType::Png).is_err(), "{n}");
    }
    let iend_at = png.len() - 12;
    assert_eq!(
        check_whole(&png[..iend_at], MediaType::Png),
        Err(missing("IEND chunk", iend_at))
    );
    assert_eq!(
        check_whole(&png[..iend_at + 9], MediaType::Png),
        Err(Damage::Truncated {
            part: "IEND chunk".into(),
            at: iend_at,
            end: iend_at + 9
        })
    );
}

#[test]
fn png_a_flipped_data_byte_is_a_crc_mismatch_at_its_chunk() {
    let parts = png_parts();
    let idat_at = parts[..3].iter().map(Vec::len).sum::<usize>();
    let mut png = parts.concat();
    png[idat_at + 10] ^= 0x01;
    let err = check_whole(&png, MediaType::Png).unwrap_err();
    assert_eq!(
        err,
        Damage::CrcMismatch {
            chunk: *b"IDAT",
            at: idat_at
        }
    );
    assert_eq!(
        err.to_string(),
        format!("IDAT chunk CRC mismatch at byte {idat_at}")
    );
}

#[test]
fn png_ihdr_must_come_first_and_idat_must_exist() {
    let p = png_parts();
    let text_first = [&p[0], &p[2], &p[1], &p[3], &p[4]].map(|v| &v[..]).concat();
    assert_eq!(
        check_whole(&text_first, MediaType::Png),
        Err(malformed("first chunk (not IHDR)", 8))
    );
    let no_idat = [&p[0], &p[1], &p[4]].map(|v| &v[..]).concat();
    assert_eq!(
        check_whole(&no_idat, MediaType::Png),
        Err(missing("IDAT chunk", 8))
    );
    let mut bad_type = tiny_png();
    bad_type[37] = b'1'; // inside the tEXt chunk's type
    assert_eq!(
        check_whole(&bad_type, MediaType::Png),
        Err(malformed("chunk type", 37))
    );
    let mut huge = tiny_png();
    huge[33..37].copy_from_slice(&u32::MAX.to_be_bytes());
    assert_eq!(
        check_whole(&huge, MediaType::Png),
        Err(malformed("chunk length", 33))
    );
    assert_eq!(
        check_whole(b"\x89PNG", MediaType::Png),
        Err(truncated("signature", 0, 4))
    );
    assert_eq!(
        check_whole(b"GIF89a", MediaType::Png),
        Err(malformed("signature", 0))
    );
}

/// SOI, a frame header, a scan whose data holds a stuffed byte and a
/// restart marker, a second scan, EOI.
fn tiny_jpeg() -> Vec<u8> {
    let mut j = vec![0xFF, 0xD8];
    j.extend_from_slice(&[0xFF, 0xE0, 0x00, 0x04, b'J', b'F']);
    j.extend_from_slice(&[0xFF, 0xC2, 0x00, 0x0B, 8, 0, 1, 0, 1, 1, 1, 0x11, 0]);
    j.extend_from_slice(&[0xFF, 0xDA, 0x00, 0x08, 1, 1, 0, 0, 0x3F, 0]);
    j.extend_from_slice(&[0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD0, 0x56]);
    j.extend_from_slice(&[0xFF, 0xFF, 0xC4, 0x00, 0x03, 0x00]); // fill byte, then DHT
    j.extend_from_slice(&[0xFF, 0xDA, 0x00, 0x08, 1, 1, 0, 0, 0x3F, 0]);
    j.extend_from_slice(&[0x78, 0x9A]);
    j.extend_from_slice(&[0xFF, 0xD9]);
    j
}

#[test]
fn jpeg_walks_segments_scans_stuffing_and_restarts_to_eoi() {
    let j = tiny_jpeg();
    assert_eq!(check_whole(&j, MediaType::Jpeg), Ok(()));
    let mut padded = j.clone();
    padded.extend_from_slice(&[0, 0, 0, b'x']);
    assert_eq!(check_whole(&padded, MediaType::Jpeg), Ok(()));
    for n in 0..j.len() {
        assert!(check_whole(&j[..n], MediaType::Jpeg).is_err(), "{n}");
    }
}

#[test]
fn jpeg_without_eoi_names_the_scan_it_searched() {
    let j = tiny_jpeg();
    let second_scan_data = j.len() - 4;
    assert_eq!(
        check_whole(&j[..j.len() - 2], MediaType::Jpeg),
        Err(missing("EOI marker", second_scan_data))
    );
    let mut stuffed_end = j[..j.len() - 2].to_vec();
    stuffed_end.extend_from_slice(&[0xFF, 0x00]);
    assert!(check_whole(&stuffed_end, MediaType::Jpeg).is_err());
}

#[test]
fn jpeg_segments_must_fit_and_come_in_order() {
    let j = tiny_jpeg();
    assert_eq!(
        check_whole(&j[..10], MediaType::Jpeg),
        Err(truncated("SOF segment", 8, 10))
    );
    let no_frame = [0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02, 0xFF, 0xD9];
    assert_eq!(
        check_whole(&no_frame, MediaType::Jpeg),
        Err(malformed("SOS segment before any frame header", 2))
    );
    let bad_len = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01];
    assert_eq!(
        check_whole(&bad_len, MediaType::Jpeg),
        Err(malformed("segment length", 4))
    );
    // Extraneous bytes before a marker are skipped, as decoders do.
    let mut extraneous = j[..8].to_vec();
    extraneous.extend_from_slice(&[0x00, 0x12]);
    extraneous.extend_from_slice(&j[8..]);
    assert_eq!(check_whole(&extraneous, MediaType::Jpeg), Ok(()));
    let junk = [0xFF, 0xD8, 0x00, 0x12];
    assert_eq!(
        check_whole(&junk, MediaType::Jpeg),
        Err(missing("SOS segment", 2))
    );
    let eoi_only = [0xFF, 0xD8, 0xFF, 0xD9];
    assert!(check_whole(&eoi_only, MediaType::Jpeg).is_err());
}

/// Two frames, a graphic control extension, a comment, a local colour
/// table.
fn tiny_gif() -> Vec<u8> {
    let mut g = b"GIF89a\x01\0\x01\0\x80\0\0".to_vec();
    g.extend_from_slice(&[0, 0, 0, 255, 255, 255]);
    g.extend_from_slice(&[0x21, 0xF9, 4, 0, 0, 0, 0, 0]);
    g.extend_from_slice(&[0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0]);
    g.extend_from_slice(&[0x21, 0xFE, 3, b'h', b'i', b'!', 0]);
    g.extend_from_slice(&[0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0x80, 1, 2, 3, 4, 5, 6]);
    g.extend_from_slice(&[2, 2, 0x44, 0x01, 0]);
    g.push(0x3B);
    g
}

#[test]
fn gif_walks_every_block_to_the_trailer() {
    let g = tiny_gif();
    assert_eq!(check_whole(&g, MediaType::Gif), Ok(()));
    for n in 0..g.len() {
        assert!(check_whole(&g[..n], MediaType::Gif).is_err(), "{n}");
    }
    assert_eq!(
        check_whole(&g[..g.len() - 1], MediaType::Gif),
        Err(missing("trailer (0x3B)", g.len() - 1))
    );
    let mut junk = g.clone();
    junk[19] = 0x99;
    assert_eq!(
        check_whole(&junk, MediaType::Gif),
        Err(malformed("block introducer", 19))
    );
    let no_image = b"GIF89a\x01\0\x01\0\0\0\0;";
    assert_eq!(
        check_whole(no_image, MediaType::Gif),
        Err(missing("image descriptor", 13))
    );
}

fn riff(chunks: &[(&[u8; 4], &[u8])]) -> Vec<u8> {
    let mut body = b"WEBP".to_vec();
    for (kind, data) in chunks {
        body.extend_from_slice(*kind);
        body.extend_from_slice(&(data.len() as u32).to_le_bytes());
        body.extend_from_slice(data);
        if data.len() % 2 == 1 {
            body.push(0);
        }
    }
    let mut w = b"RIFF".to_vec();
    w.extend_from_slice(&(body.len() as u32).to_le_bytes());
    w.extend_from_slice(&body);
    w
}

#[test]
fn webp_the_riff_form_and_its_chunks_must_be_complete() {
    let w = riff(&[(b"VP8L", &[0x2F, 0, 0, 0, 0, 1, 2]), (b"EXIF", b"ab")]);
    assert_eq!(check_whole(&w, MediaType::Webp), Ok(()));
    let mut trailing = w.clone();
    trailing.extend_from_slice(b"junk");
    assert_eq!(check_whole(&trailing, MediaType::Webp), Ok(()));
    for n in 0..w.len() {
        assert!(check_whole(&w[..n], MediaType::Webp).is_err(), "{n}");
    }
    assert_eq!(
        check_whole(&w[..w.len() - 1], MediaType::Webp),
        Err(truncated("RIFF form", 0, w.len() - 1))
    );
    // A RIFF length too short for the chunks it holds.
    let mut short = w.clone();
    let size = u32::from_le_bytes(short[4..8].try_into().unwrap()) - 1;
    short[4..8].copy_from_slice(&size.to_le_bytes());
    assert_eq!(
        check_whole(&short, MediaType::Webp),
        Err(Damage::Truncated {
            part: "EXIF chunk".into(),
            at: 28,
            end: 37
        })
    );
}

#[test]
fn webp_first_chunk_and_image_data_are_required() {
    let exif_first = riff(&[(b"EXIF", b"ab"), (b"VP8L", &[0x2F])]);
    assert_eq!(
        check_whole(&exif_first, MediaType::Webp),
        Err(malformed("first chunk (not VP8, VP8L or VP8X)", 12))
    );
    let header_only = riff(&[(b"VP8X", &[0; 10])]);
    assert_eq!(
        check_whole(&header_only, MediaType::Webp),
        Err(missing("image data chunk", 12))
    );
    let animated = riff(&[(b"VP8X", &[2; 10]), (b"ANIM", &[0; 6]), (b"ANMF", &[0; 17])]);
    assert_eq!(check_whole(&animated, MediaType::Webp), Ok(()));
    assert_eq!(
        check_whole(b"RIFF\x04\0\0\0WEBX", MediaType::Webp),
        Err(malformed("RIFF form type (not WEBP)", 8))
    );
}

const PDF: &[u8] = b"%PDF-1.4\n1 0 obj <</Type /Catalog>> endobj\nxref\n0 2\n\
    0000000000 65535 f \n0000000009 00000 n \ntrailer <</Root 1 0 R /Size 2>>\n\
    startxref\n43\n%%EOF\n";

#[test]
fn pdf_needs_a_version_eof_and_startxref() {
    assert_eq!(check_whole(PDF, MediaType::Pdf), Ok(()));
    assert_eq!(
        check_whole(b"%PDF-1.4 fake\n", MediaType::Pdf),
        Err(missing("%%EOF", 0))
    );
    assert_eq!(
        check_whole(b"%PDF-x.y\n%%EOF", MediaType::Pdf),
        Err(malformed("version", 5))
    );
    assert_eq!(
        check_whole(b"%PDF-1.7\n%%EOF\n", MediaType::Pdf),
        Err(missing("startxref", 0))
    );
    let no_eof = &PDF[..PDF.len() - 6];
    assert_eq!(
        check_whole(no_eof, MediaType::Pdf),
        Err(missing("%%EOF", 0))
    );
    // Trailing bytes after %%EOF, within the last 1024, are fine.
    let mut trailing = PDF.to_vec();
    trailing.extend_from_slice(b"\0\0\r\n");
    assert_eq!(check_whole(&trailing, MediaType::Pdf), Ok(()));
}

#[test]
fn pdf_eof_must_be_in_the_last_kilobyte() {
    let mut far = PDF.to_vec();
    far.extend(std::iter::repeat_n(b' ', 1024));
    assert_eq!(
        check_whole(&far, MediaType::Pdf),
        Err(missing("%%EOF", far.len() - 1024))
    );
}

#[test]
fn pdf_startxref_needs_an_offset_before_it() {
    let sx = PDF.len() - 19;
    for bad in [
        &b"startxref\n%%EOF\n"[..],
        b"startxref\nx1\n%%EOF\n",
        b"startxref 99999\n%%EOF\n",
        b"startxref12\n%%EOF\n",
    ] {
        let mut pdf = PDF[..sx].to_vec();
        pdf.extend_from_slice(bad);
        assert_eq!(
            check_whole(&pdf, MediaType::Pdf),
            Err(malformed("startxref offset", sx)),
            "{}",
            String::from_utf8_lossy(bad)
        );
    }
}

#[test]
fn bmp_is_left_to_its_decoder() {
    assert_eq!(check_whole(b"BM", MediaType::Bmp), Ok(()));
}

#[test]
fn no_check_panics_on_prefixes_of_any_sample() {
    let samples = [tiny_png(), tiny_jpeg(), tiny_gif(), PDF.to_vec()];
    for bytes in &samples {
        for n in 0..=bytes.len() {
            for t in MediaType::ALL {
                let _ = check_whole(&bytes[..n], t).map_err(|e| e.to_string());
            }
        }
    }
}
