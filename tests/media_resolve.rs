//! Resolving targets: strict data: URIs, URLs never fetched, local paths
//! confined to roots, regular files only, bounded reads.
#![cfg(feature = "media")]

#[path = "media_support/mod.rs"]
mod support;

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use base64::Engine;
use support::*;
use tempfile::TempDir;
use tool_carrier::media::{
    read_regular_file, Budget, DefaultResolver, Loaded, MediaError, MediaType, Origin, Policy,
    Resolver, Source,
};
use tool_carrier::roots::{RootError, Roots};

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// A temporary tree: `inside/` is the root, `secret` is beside it.
fn tree() -> (TempDir, DefaultResolver) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("inside")).unwrap();
    std::fs::write(dir.path().join("inside/a.png"), png_rgb(&photo(8, 8, 1))).unwrap();
    std::fs::write(dir.path().join("secret"), png_rgb(&photo(8, 8, 2))).unwrap();
    let roots = Roots::new([dir.path().join("inside")]).unwrap();
    let resolver = DefaultResolver::new(Policy::default().with_roots(roots));
    (dir, resolver)
}

fn loaded(source: Source) -> Loaded {
    match source {
        Source::Bytes(l) => l,
        Source::Url(u) => panic!("unexpected URL {u}"),
    }
}

/// Run `f` on another thread and fail if it does not finish in 5 s.
fn within_5s<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(5))
        .expect("hung instead of refusing")
}

// ---- data: URIs ----

#[test]
fn a_strict_data_uri_resolves_to_its_bytes() {
    let png = png_rgb(&photo(4, 4, 3));
    let uri = format!("data:image/png;base64,{}", b64(&png));
    let l = loaded(DefaultResolver::default().resolve(&uri).unwrap());
    assert_eq!(l.bytes, png);
    assert_eq!(l.origin, Origin::DataUri);
    assert_eq!(l.declared, Some(MediaType::Png));
    let p = l.prepare(&Policy::default(), Budget::ANTHROPIC).unwrap();
    assert_eq!(p.bytes, png);
}

#[test]
fn malformed_data_uris_are_refused() {
    let r = DefaultResolver::default();
    let good = b64(&png_rgb(&photo(4, 4, 3)));
    for uri in [
        format!("data:image/png,{good}"),
        format!("data:image/png;base64{good}"),
        format!("data:image/png;name=a.png;base64,{good}"),
        "data:image/png;base64,".to_owned(),
    ] {
        assert!(
            matches!(r.resolve(&uri), Err(MediaError::BadDataUri(_))),
            "{uri}"
        );
    }
    for uri in [
        format!("data:image/png;base64,{}", &good[1..]),
        format!("data:image/png;base64,{}", good.replace('A', " A")),
        "data:image/png;base64,iVBORw0KGgo".to_owned(), // padding missing
    ] {
        assert!(
            matches!(r.resolve(&uri), Err(MediaError::BadBase64(_))),
            "{uri}"
        );
    }
    let svg = "data:image/svg+xml;base64,PHN2Zy8+";
    assert!(matches!(
        r.resolve(svg),
        Err(MediaError::DisallowedMediaType(_))
    ));
}

#[test]
fn a_declared_type_that_disagrees_with_the_bytes_is_refused() {
    let jpeg_bytes = jpeg(&photo(8, 8, 4), 80);
    let uri = format!("data:image/png;base64,{}", b64(&jpeg_bytes));
    let err = DefaultResolver::default().resolve(&uri).unwrap_err();
    assert!(matches!(
        err,
        MediaError::TypeMismatch {
            declared: MediaType::Png,
            ..
        }
    ));
    assert_eq!(
        err.to_string(),
        "declared image/png but the bytes are image/jpeg"
    );
    let text = format!("data:application/pdf;base64,{}", b64(b"not a pdf"));
    let err = DefaultResolver::default().resolve(&text).unwrap_err();
    assert_eq!(
        err.to_string(),
        "declared application/pdf but the bytes are unrecognised bytes"
    );
}

#[test]
fn a_data_uri_over_the_cap_is_refused_before_decoding() {
    let policy = Policy::default().with_max_data_uri_len(1000);
    let uri = format!("data:image/png;base64,{}", "A".repeat(1004));
    let err = DefaultResolver::new(policy).resolve(&uri).unwrap_err();
    assert!(matches!(
        err,
        MediaError::DataUriTooLarge {
            len: 1004,
            cap: 1000
        }
    ));
}

#[test]
fn loaded_bytes_are_checked_against_their_declared_type() {
    let l = Loaded::new(b"%PDF-1.4\n".to_vec(), Origin::Other).with_declared(MediaType::Png);
    let err = l
        .prepare(&Policy::default(), Budget::ANTHROPIC)
        .unwrap_err();
    assert!(matches!(err, MediaError::TypeMismatch { .. }));
}

// ---- URLs and schemes ----

#[test]
fn http_urls_are_handed_on_never_fetched() {
    let r = DefaultResolver::default();
    for url in ["https://example.com/a.png", "HTTP://example.com:8080/x?y#z"] {
        match r.resolve(url).unwrap() {
            Source::Url(u) => assert_eq!(u, url),
            Source::Bytes(_) => panic!("fetched {url}"),
        }
    }
    for bad in [
        "https://",
        "http:///a.png",
        "https://a b/c.png",
        "http:example.com",
    ] {
        assert!(
            matches!(r.resolve(bad), Err(MediaError::BadUrl { .. })),
            "{bad}"
        );
    }
}

#[test]
fn other_schemes_are_refused() {
    let r = DefaultResolver::default();
    for t in ["ftp://x/a.png", "javascript:alert(1)", "smb://host/a.png"] {
        assert!(
            matches!(r.resolve(t), Err(MediaError::UnsupportedScheme { .. })),
            "{t}"
        );
    }
    assert!(matches!(r.resolve(""), Err(MediaError::EmptyTarget)));
}

// ---- local paths ----

#[test]
fn without_roots_no_local_file_is_read() {
    let err = DefaultResolver::default()
        .resolve("/etc/hostname")
        .unwrap_err();
    assert!(matches!(
        err,
        MediaError::Root {
            source: RootError::NoRoots,
            ..
        }
    ));
}

// ---- file: URIs ----

/// `file:///abs`, `file://localhost/abs` and `file:/abs`, percent-decoded,
/// name the file the plain path names.
#[test]
fn a_file_uri_inside_a_root_is_the_file_it_names() {
    let (dir, r) = tree();
    let canonical = dir.path().join("inside/a.png").canonicalize().unwrap();
    let abs = canonical.to_str().unwrap();
    let escaped = abs.replace("a.png", "%61.png");
    for uri in [
        format!("file://{abs}"),
        format!("file://localhost{abs}"),
        format!("file:{abs}"),
        format!("file://{escaped}"),
    ] {
        let l = loaded(r.resolve(&uri).unwrap());
        assert_eq!(l.origin, Origin::File(canonical.clone()), "{uri}");
        assert!(r.stamp(&uri).is_some(), "{uri}: a file: target has a stamp");
    }
}

/// A `file:` URI reaches nothing a path could not: outside the roots,
/// without roots, through `..`, and on another host it is refused.
#[test]
fn a_file_uri_is_confined_like_a_path() {
    let (dir, r) = tree();
    let secret = dir.path().join("secret").canonicalize().unwrap();
    let inside = dir.path().join("inside").canonicalize().unwrap();
    for uri in [
        format!("file://{}", secret.display()),
        format!("file://{}/../secret", inside.display()),
        format!("file://{}/%2e%2e/secret", inside.display()),
    ] {
        assert!(
            matches!(
                r.resolve(&uri),
                Err(MediaError::Root {
                    source: RootError::OutsideRoots,
                    ..
                })
            ),
            "{uri}"
        );
        assert!(r.stamp(&uri).is_none());
    }
    let err = DefaultResolver::default()
        .resolve("file:///etc/hostname")
        .unwrap_err();
    assert!(matches!(
        err,
        MediaError::Root {
            source: RootError::NoRoots,
            ..
        }
    ));
    let remote = format!("file://server{}", inside.join("a.png").display());
    let err = r.resolve(&remote).unwrap_err();
    assert!(matches!(err, MediaError::BadFileUri { .. }), "{err}");
    assert_eq!(
        err.to_string(),
        format!("{remote}: file: URI names a host other than localhost")
    );
}

#[test]
fn relative_targets_resolve_against_the_first_root() {
    let (dir, r) = tree();
    let l = loaded(r.resolve("a.png").unwrap());
    let canonical = dir.path().join("inside/a.png").canonicalize().unwrap();
    assert_eq!(l.origin, Origin::File(canonical));
    assert_eq!(l.declared, None);
}

#[test]
fn dot_dot_cannot_escape_a_root() {
    let (_dir, r) = tree();
    for t in ["../secret", "./../secret", "sub/../../secret"] {
        let err = r.resolve(t).unwrap_err();
        assert!(
            matches!(
                err,
                MediaError::Root {
                    source: RootError::OutsideRoots,
                    ..
                } | MediaError::Root {
                    source: RootError::Unresolvable(_),
                    ..
                }
            ),
            "{t}: {err}"
        );
    }
    assert!(matches!(
        r.resolve("../secret"),
        Err(MediaError::Root {
            source: RootError::OutsideRoots,
            ..
        })
    ));
}

#[test]
fn absolute_paths_outside_every_root_are_refused() {
    let (dir, r) = tree();
    let secret = dir.path().join("secret");
    let err = r.resolve(secret.to_str().unwrap()).unwrap_err();
    assert!(matches!(
        err,
        MediaError::Root {
            source: RootError::OutsideRoots,
            ..
        }
    ));
    assert!(
        err.to_string().contains("secret"),
        "names the target: {err}"
    );
    assert!(matches!(
        r.resolve("/etc/passwd"),
        Err(MediaError::Root {
            source: RootError::OutsideRoots,
            ..
        })
    ));
}

#[cfg(unix)]
#[test]
fn a_symlink_cannot_lead_out_of_a_root() {
    let (dir, r) = tree();
    std::os::unix::fs::symlink(
        dir.path().join("secret"),
        dir.path().join("inside/link.png"),
    )
    .unwrap();
    std::os::unix::fs::symlink(dir.path(), dir.path().join("inside/up")).unwrap();
    assert!(matches!(
        r.resolve("link.png"),
        Err(MediaError::Root {
            source: RootError::OutsideRoots,
            ..
        })
    ));
    assert!(matches!(
        r.resolve("up/secret"),
        Err(MediaError::Root {
            source: RootError::OutsideRoots,
            ..
        })
    ));
}

#[cfg(unix)]
#[test]
fn dev_zero_is_refused_without_hanging() {
    let roots = Roots::new(["/dev"]).unwrap();
    let r = DefaultResolver::new(Policy::default().with_roots(roots));
    let err = within_5s(move || r.resolve("/dev/zero").unwrap_err());
    assert!(
        matches!(
            err,
            MediaError::Root {
                source: RootError::NotARegularFile("a device"),
                ..
            }
        ),
        "{err}"
    );
    let err = within_5s(|| read_regular_file(Path::new("/dev/zero"), 1 << 20).unwrap_err());
    assert!(matches!(
        err,
        MediaError::Root {
            source: RootError::NotARegularFile(_),
            ..
        }
    ));
}

#[cfg(unix)]
#[test]
fn a_fifo_is_refused_without_hanging() {
    let (dir, r) = tree();
    let fifo = dir.path().join("inside/pipe.png");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let err = within_5s(move || r.resolve("pipe.png").unwrap_err());
    assert!(
        matches!(
            err,
            MediaError::Root {
                source: RootError::NotARegularFile("a FIFO"),
                ..
            }
        ),
        "{err}"
    );
    let err = within_5s(move || read_regular_file(&fifo, 1 << 20).unwrap_err());
    assert!(matches!(
        err,
        MediaError::Root {
            source: RootError::NotARegularFile("a FIFO"),
            ..
        }
    ));
}

#[test]
fn a_folder_is_refused() {
    let (dir, r) = tree();
    std::fs::create_dir(dir.path().join("inside/shots")).unwrap();
    assert!(matches!(
        r.resolve("shots"),
        Err(MediaError::Root {
            source: RootError::NotARegularFile("a folder"),
            ..
        })
    ));
    assert!(matches!(
        read_regular_file(dir.path(), 1 << 20),
        Err(MediaError::Root {
            source: RootError::NotARegularFile(_),
            ..
        })
    ));
}

#[test]
fn an_oversized_file_is_refused_before_reading() {
    let (dir, _) = tree();
    let big = dir.path().join("inside/big.png");
    // Sparse: 10 GB by its metadata, nothing on disk. Reading it would take
    // minutes; the refusal reports the metadata size, not a read count.
    let file = std::fs::File::create(&big).unwrap();
    file.set_len(10_000_000_000).unwrap();
    let roots = Roots::new([dir.path().join("inside")]).unwrap();
    let policy = Policy::default()
        .with_roots(roots)
        .with_max_file_bytes(1000);
    let r = DefaultResolver::new(policy);
    let err = within_5s(move || r.resolve("big.png").unwrap_err());
    assert!(matches!(
        err,
        MediaError::FileTooLarge {
            size: 10_000_000_000,
            cap: 1000,
            ..
        }
    ));
    let err = within_5s(move || read_regular_file(&big, 1000).unwrap_err());
    assert!(matches!(
        err,
        MediaError::FileTooLarge {
            size: 10_000_000_000,
            ..
        }
    ));
}

#[test]
fn a_file_at_the_cap_is_read() {
    let (dir, _) = tree();
    let path = dir.path().join("inside/a.png");
    let len = std::fs::metadata(&path).unwrap().len();
    assert_eq!(read_regular_file(&path, len).unwrap().len() as u64, len);
    assert!(matches!(
        read_regular_file(&path, len - 1),
        Err(MediaError::FileTooLarge { .. })
    ));
}

#[test]
fn the_extension_is_never_trusted_over_the_bytes() {
    let (dir, r) = tree();
    std::fs::write(
        dir.path().join("inside/photo.png"),
        jpeg(&photo(8, 8, 5), 80),
    )
    .unwrap();
    std::fs::write(dir.path().join("inside/notes.jpg"), b"just some text").unwrap();
    let p = loaded(r.resolve("photo.png").unwrap())
        .prepare(r.policy(), Budget::ANTHROPIC)
        .unwrap();
    assert_eq!(p.media_type, MediaType::Jpeg);
    let err = loaded(r.resolve("notes.jpg").unwrap())
        .prepare(r.policy(), Budget::ANTHROPIC)
        .unwrap_err();
    assert!(matches!(err, MediaError::UnknownFormat));
}

#[test]
fn a_missing_file_is_named_in_the_error() {
    let (_dir, r) = tree();
    let err = r.resolve("missing.png").unwrap_err();
    assert!(matches!(
        err,
        MediaError::Root {
            source: RootError::Unresolvable(_),
            ..
        }
    ));
    assert!(err.to_string().starts_with("missing.png: "), "{err}");
}

#[test]
fn a_callers_resolver_plugs_in() {
    let resolver = |target: &str| -> Result<Source, MediaError> {
        if target == "shot-1" {
            Ok(Source::Bytes(Loaded::new(
                png_rgb(&photo(4, 4, 6)),
                Origin::Other,
            )))
        } else {
            Err(MediaError::Refused {
                target: target.to_owned(),
                reason: "unknown id".to_owned(),
            })
        }
    };
    fn use_any(r: &dyn Resolver, t: &str) -> Result<Source, MediaError> {
        r.resolve(t)
    }
    assert!(use_any(&resolver, "shot-1").is_ok());
    assert_eq!(
        use_any(&resolver, "shot-2").unwrap_err().to_string(),
        "shot-2: unknown id"
    );
}

#[cfg(unix)]
#[test]
fn a_head_is_the_start_of_what_resolving_gives_and_nothing_it_refuses() {
    let (dir, r) = tree();
    let whole = loaded(r.resolve("a.png").unwrap()).bytes;
    assert_eq!(r.head("a.png", 16).unwrap(), whole[..16]);
    assert_eq!(r.head("a.png", 1 << 20).unwrap(), whole);
    // A FIFO, a folder, a file over the cap, one outside the roots, a
    // missing one: no head, and none hangs.
    let fifo = dir.path().join("inside/pipe.png");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    std::fs::create_dir(dir.path().join("inside/shots")).unwrap();
    std::fs::File::create(dir.path().join("inside/big.png"))
        .unwrap()
        .set_len(10_000_000_000)
        .unwrap();
    let capped = DefaultResolver::new(r.policy().clone().with_max_file_bytes(1000));
    for target in ["pipe.png", "shots", "../secret", "missing.png", ""] {
        let r = r.clone();
        assert!(within_5s(move || r.head(target, 64)).is_none(), "{target}");
    }
    assert!(within_5s(move || capped.head("big.png", 64)).is_none());
    // URLs and data: URIs give none: resolving checks a data: URI whole.
    let uri = format!("data:image/png;base64,{}", b64(&whole));
    assert!(r.resolve(&uri).is_ok());
    assert!(r.head(&uri, 64).is_none());
    assert!(r.head("https://example.com/a.png", 64).is_none());
    // A closure resolver cannot tell.
    let closure = |_: &str| -> Result<Source, MediaError> { Err(MediaError::EmptyTarget) };
    assert!(closure.head("a.png", 64).is_none());
}
