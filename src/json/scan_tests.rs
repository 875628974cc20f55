//! The scanner's tests: picks, repeats, strings and arrays against
//! what serde_json reads.

use super::*;
use serde::de::IgnoredAny;

fn decoded(literal: &str) -> Option<String> {
    let src = format!("{{\"k\":{literal}}}");
    let m = object(&src, &["k"]).unwrap();
    m[0].decoded.as_ref().map(|c| c.to_string())
}

fn valid(src: &str) -> bool {
    object(src, &[]).is_some()
}

#[test]
fn agrees_with_serde_json_on_validity() {
    for src in [
        "{}",
        " { } ",
        r#"{"a":1}"#,
        r#"{"a":-0.5e+10,"b":[true,false,null,{"c":[]}],"d":"x\"\\\/\b\f\n\r\t\u00e9"}"#,
        r#"{"a":01}"#,
        r#"{"a":1.}"#,
        r#"{"a":.5}"#,
        r#"{"a":1e}"#,
        r#"{"a":-}"#,
        r#"{"a":+1}"#,
        r#"{"a":[1,]}"#,
        r#"{"a":1,}"#,
        r#"{"a" 1}"#,
        r#"{a:1}"#,
        r#"{"a":tru}"#,
        r#"{"a":"\x"}"#,
        r#"{"a":"\u12G4"}"#,
        "{\"a\":\"tab\there\"}",
        r#"{"a":"x"} x"#,
        r#"{"a":[}"#,
        r#"{"a":{"b":1,}}"#,
        r#"{"a":{"b"}}"#,
        r#"[1]"#,
        "",
        "{",
        r#"{"\ud800":1}"#,
        r#"{"a":"\ud800"}"#,
        "{\"a\":[[[[[[[[[[]]]]]]]]]]}",
        "\u{feff}{}",
        "{\"a\":1}\u{a0}",
    ] {
        let serde =
            serde_json::from_str::<std::collections::BTreeMap<String, IgnoredAny>>(src).is_ok();
        assert_eq!(valid(src), serde, "{src:?}");
    }
}

#[test]
fn is_json_agrees_with_serde_json_on_any_value() {
    for src in [
        "1",
        " -0.5e3 ",
        "\"s\"",
        "[1,[2,{}]]",
        "null",
        "true",
        "tru",
        "[1,]",
        "{}",
        r#"{"\ud800":1}"#,
        r#""\ud800""#,
        "01",
        "",
        " ",
        "[1] [2]",
        "\"a\tb\"",
        "{\"a\":1}x",
    ] {
        let serde = serde_json::from_str::<IgnoredAny>(src).is_ok();
        assert_eq!(is_json(src), serde, "{src:?}");
    }
}

#[test]
fn pick_takes_each_name_once_and_marks_the_first_repeat() {
    let src = r#"{"a":1,"b":"x","a":2,"c":3,"b":4,"a":5}"#;
    let p = pick(src, ["b", "a", "z"]).unwrap();
    assert!(matches!(p.picks[0], Pick::Repeated { at: 4 }));
    assert!(matches!(p.picks[1], Pick::Repeated { at: 2 }));
    assert!(matches!(p.picks[2], Pick::Absent));
    assert_eq!(p.last_end, Some(src.len() - 1));
    let p = pick(r#"{"b":"x\n"}"#, ["b"]).unwrap();
    let [b] = p.picks;
    assert_eq!(b.one().unwrap().decoded.as_deref(), Some("x\n"));
    assert_eq!(pick("{}", ["a"]).unwrap().last_end, None);
    assert!(pick("[1]", ["a"]).is_none());
}

#[test]
fn spans_and_escape_flags() {
    let src = r#" {"k":"plain", "e" : "a\nb" ,"n":[1, {"x":2}] } "#;
    let m = object(src, &["e"]).unwrap();
    assert_eq!(m.len(), 3);
    assert_eq!(m[0].decoded, None);
    assert_eq!(m[1].decoded.as_deref(), Some("a\nb"));
    assert_eq!(&src[m[0].value.clone()], r#""plain""#);
    assert_eq!(&src[m[1].value.clone()], r#""a\nb""#);
    assert_eq!(&src[m[2].value.clone()], r#"[1, {"x":2}]"#);
}

#[test]
fn decoding_matches_serde_json() {
    for lit in [
        r#""""#,
        r#""plain""#,
        r#""\"\\\/\b\f\n\r\t""#,
        r#""\u0041\u00e9\u20AC\ud83d\ude00""#,
        r#""a\u0000b""#,
    ] {
        let want: String = serde_json::from_str(lit).unwrap();
        assert_eq!(decoded(lit).unwrap(), want, "{lit}");
    }
    for lit in [
        r#""\ud800""#,
        r#""\udc00""#,
        r#""\ud800\u0041""#,
        r#""\ud800x""#,
    ] {
        assert!(serde_json::from_str::<String>(lit).is_err());
        assert!(
            valid(&format!("{{\"k\":{lit}}}")),
            "valid JSON all the same: {lit}"
        );
        assert!(decoded(lit).is_none(), "{lit}");
    }
}

#[test]
fn find_special_finds_the_first_hit_in_any_block() {
    let mut s = vec![b'a'; 100];
    assert_eq!(find_special(&s), None);
    for at in [0, 31, 32, 33, 63, 64, 99] {
        for b in [b'"', b'\\', 0x00, 0x1f] {
            s[at] = b;
            assert_eq!(find_special(&s), Some(at));
            s[at] = b'a';
        }
    }
    assert_eq!(find_special("é€😀".as_bytes()), None);
}

#[test]
fn arrays_split_into_element_spans() {
    let src = r#" [ 1 , "a,b" ,{"x":[2,3]}, [] ,null] "#;
    let items: Vec<_> = array(src).unwrap().into_iter().map(|r| &src[r]).collect();
    assert_eq!(items, ["1", r#""a,b""#, r#"{"x":[2,3]}"#, "[]", "null"]);
    assert_eq!(array("[]").unwrap().len(), 0);
    for bad in ["[1,]", "[", "{}", "[1] 2", "[,1]", "[1 2]"] {
        assert!(array(bad).is_none(), "{bad}");
    }
}

#[test]
fn many_escaped_keys_reserve_memory_in_proportion() {
    // Each key's decoded copy used to reserve the rest of the input.
    let src = format!("{{{}\"end\":0}}", "\"\\n\":0,".repeat(100_000));
    let m = object(&src, &[]).unwrap();
    let reserved: usize = m
        .iter()
        .map(|m| match &m.key {
            Cow::Owned(s) => s.capacity(),
            Cow::Borrowed(_) => 0,
        })
        .sum();
    assert!(reserved < 100 * 100_000, "{reserved} bytes reserved");
}

#[test]
fn only_the_first_of_a_repeated_value_is_decoded() {
    let src = format!("{{{}\"end\":0}}", "\"c\":\"\\n\",".repeat(10_000));
    let m = object(&src, &["c"]).unwrap();
    assert_eq!(m[0].decoded.as_deref(), Some("\n"));
    assert!(m[1..10_000].iter().all(|m| m.decoded.is_none()));
}

#[test]
fn deep_nesting_does_not_recurse() {
    let deep = format!(
        "{{\"a\":{}{}}}",
        "[".repeat(1_000_000),
        "]".repeat(1_000_000)
    );
    assert!(valid(&deep));
    let unbalanced = format!("{{\"a\":{}{}}}", "[".repeat(1000), "]".repeat(999));
    assert!(!valid(&unbalanced));
}

#[cfg(feature = "media")]
#[test]
fn locate_finds_a_value_by_its_path() {
    use super::{locate, Step};
    let src = r#" {"a": [1, {"b": "x\"y", "b": "last"}], "c": {}} "#;
    let at = |p: &[Step<'_>]| locate(src, p).map(|r| &src[r]);
    assert_eq!(at(&[Step::Key("a"), Step::Index(0)]), Some("1"));
    assert_eq!(
        at(&[Step::Key("a"), Step::Index(1), Step::Key("b")]),
        Some(r#""last""#)
    );
    assert_eq!(at(&[Step::Key("c")]), Some("{}"));
    assert_eq!(
        at(&[]),
        Some(r#"{"a": [1, {"b": "x\"y", "b": "last"}], "c": {}}"#)
    );
    assert_eq!(at(&[Step::Key("a"), Step::Index(2)]), None);
    assert_eq!(at(&[Step::Key("z")]), None);
    assert_eq!(at(&[Step::Index(0)]), None);
    assert_eq!(locate("{\"a\": ", &[Step::Key("a")]), None);
}
