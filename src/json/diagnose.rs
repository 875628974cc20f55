//! Why a record is not one JSON object, for the rare path: the scanner on
//! the hot path ([`scan`](super::scan)) only says yes or no, so it need not
//! track positions.
//!
//! It reads as serde_json reads a map of ignored values, step for step,
//! and says what serde_json would say and where: the same words and the
//! same line and column (a differential test holds the two together). One
//! difference is left: a record that is one number too large for an `f64`
//! is "not an object" here, where serde_json says "number out of range".

/// What is wrong with a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Diagnosis {
    /// It is a JSON value, or the start of one, that is no object.
    NotAnObject,
    /// It is not valid JSON.
    Invalid {
        /// 1-based line within the text.
        line: usize,
        /// Column within that line, as serde_json counts it (the byte
        /// offset from the line's start of the byte it stopped at).
        column: usize,
        /// serde_json's wording.
        what: &'static str,
    },
    /// A valid object (the caller's other checks refused it).
    Valid,
}

const EOF_LIST: &str = "EOF while parsing a list";
const EOF_OBJECT: &str = "EOF while parsing an object";
const EOF_STRING: &str = "EOF while parsing a string";
const EOF_VALUE: &str = "EOF while parsing a value";
const EXPECTED_COLON: &str = "expected `:`";
const LIST_COMMA: &str = "expected `,` or `]`";
const OBJECT_COMMA: &str = "expected `,` or `}`";
const IDENT: &str = "expected ident";
const VALUE: &str = "expected value";
const ESCAPE: &str = "invalid escape";
const NUMBER: &str = "invalid number";
const CONTROL: &str = "control character (\\u0000-\\u001F) found while parsing a string";
const KEY: &str = "key must be a string";
const LONE_SURROGATE: &str = "lone leading surrogate in hex escape";
const TRAILING_COMMA: &str = "trailing comma";
const TRAILING: &str = "trailing characters";
const HEX_END: &str = "unexpected end of hex escape";

/// Where reading stopped: the byte index serde_json reports, and why.
type Stop = (usize, &'static str);

/// Diagnose `src` as one JSON object.
pub(crate) fn object(src: &str) -> Diagnosis {
    let mut r = Reader {
        s: src.as_bytes(),
        i: 0,
    };
    let read = match r.ws() {
        Some(b'{') => {
            r.i += 1;
            match r.map().and_then(|()| r.end()) {
                Ok(()) => return Diagnosis::Valid,
                Err(stop) => Err(stop),
            }
        }
        // What serde_json reads of a value of another type before it
        // reports the type (and ignores what follows).
        Some(b'n') => r.word(b"ull"),
        Some(b't') => r.word(b"rue"),
        Some(b'f') => r.word(b"alse"),
        Some(b'"') => {
            r.i += 1;
            r.string(true)
        }
        Some(b'-') => {
            r.i += 1;
            r.integer(Number::Parsed)
        }
        Some(b'0'..=b'9') => r.integer(Number::Parsed),
        Some(b'[') => Ok(()),
        Some(_) => Err(r.peek_stop(VALUE)),
        None => Err(r.peek_stop(EOF_VALUE)),
    };
    match read {
        Ok(()) => Diagnosis::NotAnObject,
        Err(stop) => r.position(stop),
    }
}

/// How serde_json reads a number: parsed (a value it reports the type of)
/// or ignored (inside the object); the two say different things at the end
/// of the input.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Number {
    Parsed,
    Ignored,
}

struct Reader<'a> {
    s: &'a [u8],
    i: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.i += 1;
        Some(b)
    }

    /// serde_json's `error`: the position of the byte just read.
    fn stop(&self, what: &'static str) -> Stop {
        (self.i, what)
    }

    /// serde_json's `peek_error`: the position of the byte peeked at.
    fn peek_stop(&self, what: &'static str) -> Stop {
        ((self.i + 1).min(self.s.len()), what)
    }

    fn position(&self, (at, what): Stop) -> Diagnosis {
        let before = &self.s[..at];
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        Diagnosis::Invalid {
            line: 1 + before[..line_start].iter().filter(|&&b| b == b'\n').count(),
            column: at - line_start,
            what,
        }
    }

    /// White space skipped; the next byte, not consumed.
    fn ws(&mut self) -> Option<u8> {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.peek() {
            self.i += 1;
        }
        self.peek()
    }

    /// The members of a map whose `{` is consumed, up to and with its `}`.
    fn map(&mut self) -> Result<(), Stop> {
        let mut first = true;
        loop {
            let Some(peek) = self.ws() else {
                return Err(self.peek_stop(EOF_OBJECT));
            };
            if peek == b'}' {
                self.i += 1;
                return Ok(());
            }
            if first {
                first = false;
                if peek != b'"' {
                    return Err(self.peek_stop(KEY));
                }
            } else if peek == b',' {
                self.i += 1;
                match self.ws() {
                    Some(b'"') => {}
                    Some(b'}') => return Err(self.peek_stop(TRAILING_COMMA)),
                    Some(_) => return Err(self.peek_stop(KEY)),
                    None => return Err(self.peek_stop(EOF_VALUE)),
                }
            } else {
                return Err(self.peek_stop(OBJECT_COMMA));
            }
            // The key is decoded, so its escapes must be characters.
            self.i += 1;
            self.string(true)?;
            match self.ws() {
                Some(b':') => self.i += 1,
                Some(_) => return Err(self.peek_stop(EXPECTED_COLON)),
                None => return Err(self.peek_stop(EOF_OBJECT)),
            }
            self.ignore_value()?;
        }
    }

    /// Only white space may follow.
    fn end(&mut self) -> Result<(), Stop> {
        match self.ws() {
            Some(_) => Err(self.peek_stop(TRAILING)),
            None => Ok(()),
        }
    }

    /// The rest of a string whose `"` is consumed; `decoded` when its
    /// escapes must decode (a key), else only checked (an ignored value).
    fn string(&mut self, decoded: bool) -> Result<(), Stop> {
        loop {
            while self
                .peek()
                .is_some_and(|b| b != b'"' && b != b'\\' && b >= 0x20)
            {
                self.i += 1;
            }
            match self.peek() {
                None => return Err(self.stop(EOF_STRING)),
                Some(b'"') => {
                    self.i += 1;
                    return Ok(());
                }
                Some(b'\\') => {
                    self.i += 1;
                    self.escape(decoded)?;
                }
                Some(_) => {
                    // A key's reader steps over the control character
                    // before it reports; an ignored value's does not.
                    if decoded {
                        self.i += 1;
                    }
                    return Err(self.stop(CONTROL));
                }
            }
        }
    }

    fn escape(&mut self, decoded: bool) -> Result<(), Stop> {
        let Some(ch) = self.next() else {
            return Err(self.stop(EOF_STRING));
        };
        match ch {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Ok(()),
            b'u' if decoded => self.unicode_escape(),
            b'u' => self.hex().map(drop),
            _ => Err(self.stop(ESCAPE)),
        }
    }

    fn hex(&mut self) -> Result<u16, Stop> {
        let Some(digits) = self.s.get(self.i..self.i + 4) else {
            self.i = self.s.len();
            return Err(self.stop(EOF_STRING));
        };
        self.i += 4;
        let text = std::str::from_utf8(digits).map_err(|_| self.stop(ESCAPE))?;
        if !text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(self.stop(ESCAPE));
        }
        u16::from_str_radix(text, 16).map_err(|_| self.stop(ESCAPE))
    }

    /// A `\u` escape that must be a character: a surrogate only as the
    /// first of a pair.
    fn unicode_escape(&mut self) -> Result<(), Stop> {
        let n = self.hex()?;
        if (0xDC00..=0xDFFF).contains(&n) {
            return Err(self.stop(LONE_SURROGATE));
        }
        if !(0xD800..=0xDBFF).contains(&n) {
            return Ok(());
        }
        for want in [b'\\', b'u'] {
            match self.peek() {
                None => return Err(self.stop(EOF_STRING)),
                Some(b) => {
                    self.i += 1;
                    if b != want {
                        return Err(self.stop(HEX_END));
                    }
                }
            }
        }
        let n2 = self.hex()?;
        if (0xDC00..=0xDFFF).contains(&n2) {
            Ok(())
        } else {
            Err(self.stop(LONE_SURROGATE))
        }
    }

    /// A literal whose first byte is peeked at.
    fn word(&mut self, rest: &[u8]) -> Result<(), Stop> {
        self.i += 1;
        self.ident(rest)
    }

    fn ident(&mut self, rest: &[u8]) -> Result<(), Stop> {
        for &want in rest {
            match self.next() {
                None => return Err(self.stop(EOF_VALUE)),
                Some(b) if b != want => return Err(self.stop(IDENT)),
                Some(_) => {}
            }
        }
        Ok(())
    }

    fn digits(&mut self) -> bool {
        let start = self.i;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.i += 1;
        }
        self.i > start
    }

    fn integer(&mut self, how: Number) -> Result<(), Stop> {
        // Nothing is consumed at the end of the input.
        match self.next() {
            Some(b'0') => {
                if self.peek().is_some_and(|b| b.is_ascii_digit()) {
                    return Err(self.peek_stop(NUMBER));
                }
            }
            Some(b'1'..=b'9') => {
                self.digits();
            }
            None if how == Number::Parsed => return Err(self.stop(EOF_VALUE)),
            _ => return Err(self.stop(NUMBER)),
        }
        match self.peek() {
            Some(b'.') => self.decimal(how),
            Some(b'e' | b'E') => self.exponent(how),
            _ => Ok(()),
        }
    }

    fn decimal(&mut self, how: Number) -> Result<(), Stop> {
        self.i += 1;
        if !self.digits() {
            let what = match (how, self.peek()) {
                (Number::Parsed, None) => EOF_VALUE,
                _ => NUMBER,
            };
            return Err(self.peek_stop(what));
        }
        match self.peek() {
            Some(b'e' | b'E') => self.exponent(how),
            _ => Ok(()),
        }
    }

    fn exponent(&mut self, how: Number) -> Result<(), Stop> {
        self.i += 1;
        if let Some(b'+' | b'-') = self.peek() {
            self.i += 1;
        }
        match self.next() {
            Some(b'0'..=b'9') => {}
            None if how == Number::Parsed => return Err(self.stop(EOF_VALUE)),
            _ => return Err(self.stop(NUMBER)),
        }
        self.digits();
        Ok(())
    }

    /// One value of any depth, skipped as serde_json skips an ignored one:
    /// with a stack of open containers, not recursion.
    fn ignore_value(&mut self) -> Result<(), Stop> {
        let mut open: Vec<u8> = Vec::new();
        let mut enclosing: Option<u8> = None;
        loop {
            let Some(peek) = self.ws() else {
                return Err(self.peek_stop(EOF_VALUE));
            };
            let frame = match peek {
                b'n' => {
                    self.word(b"ull")?;
                    None
                }
                b't' => {
                    self.word(b"rue")?;
                    None
                }
                b'f' => {
                    self.word(b"alse")?;
                    None
                }
                b'-' => {
                    self.i += 1;
                    self.integer(Number::Ignored)?;
                    None
                }
                b'0'..=b'9' => {
                    self.integer(Number::Ignored)?;
                    None
                }
                b'"' => {
                    self.i += 1;
                    self.string(false)?;
                    None
                }
                b'[' | b'{' => {
                    open.extend(enclosing.take());
                    self.i += 1;
                    Some(peek)
                }
                _ => return Err(self.peek_stop(VALUE)),
            };
            let (mut accept_comma, mut frame) = match frame {
                Some(frame) => (false, frame),
                None => match enclosing.take().or_else(|| open.pop()) {
                    Some(frame) => (true, frame),
                    None => return Ok(()),
                },
            };
            loop {
                match self.ws() {
                    Some(b',') if accept_comma => {
                        self.i += 1;
                        break;
                    }
                    Some(b']') if frame == b'[' => {}
                    Some(b'}') if frame == b'{' => {}
                    Some(_) if accept_comma => {
                        let what = if frame == b'[' {
                            LIST_COMMA
                        } else {
                            OBJECT_COMMA
                        };
                        return Err(self.peek_stop(what));
                    }
                    Some(_) => break,
                    None => {
                        let what = if frame == b'[' { EOF_LIST } else { EOF_OBJECT };
                        return Err(self.peek_stop(what));
                    }
                }
                self.i += 1;
                match open.pop() {
                    Some(outer) => frame = outer,
                    None => return Ok(()),
                }
                accept_comma = true;
            }
            if frame == b'{' {
                match self.ws() {
                    Some(b'"') => self.i += 1,
                    Some(_) => return Err(self.peek_stop(KEY)),
                    None => return Err(self.peek_stop(EOF_OBJECT)),
                }
                self.string(false)?;
                match self.ws() {
                    Some(b':') => self.i += 1,
                    Some(_) => return Err(self.peek_stop(EXPECTED_COLON)),
                    None => return Err(self.peek_stop(EOF_OBJECT)),
                }
            }
            enclosing = Some(frame);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::IgnoredAny;
    use std::collections::BTreeMap;

    /// What serde_json says of `src`, in [`Diagnosis`] terms.
    fn serde(src: &str) -> Diagnosis {
        match serde_json::from_str::<BTreeMap<String, IgnoredAny>>(src) {
            Ok(_) => Diagnosis::Valid,
            Err(e) if e.is_data() => Diagnosis::NotAnObject,
            Err(e) => Diagnosis::Invalid {
                line: e.line(),
                column: e.column(),
                // The test may read serde_json's text; the library never does.
                what: leak(
                    e.to_string()
                        .strip_suffix(&format!(" at line {} column {}", e.line(), e.column()))
                        .expect("serde_json's position suffix")
                        .to_owned(),
                ),
            },
        }
    }

    fn leak(s: String) -> &'static str {
        Box::leak(s.into_boxed_str())
    }

    pub(crate) fn agrees(src: &str) {
        let want = serde(src);
        if let Diagnosis::Invalid {
            what: "number out of range",
            ..
        } = want
        {
            // The one difference the module documents.
            assert_eq!(object(src), Diagnosis::NotAnObject, "{src:?}");
            return;
        }
        assert_eq!(object(src), want, "{src:?}");
    }

    #[test]
    fn says_what_serde_json_says_where_it_says_it() {
        for src in [
            "",
            "  \n ",
            "{",
            "{\"role\":\"user\"",
            "{\"a\":1}",
            "{\"a\":1,}",
            "{,}",
            "{\"a\" 1}",
            "{\"a\":}",
            "{\"a\":1 \"b\":2}",
            "{\"a\":[1,2}",
            "{\"a\":[1 2]}",
            "{\"a\":{\"b\":1,}}",
            "{\"a\":{\"b\" 1}}",
            "{\"a\":{1:2}}",
            "{\"a\":tru}",
            "{\"a\":nul",
            "{\"a\":-}",
            "{\"a\":01}",
            "{\"a\":1.}",
            "{\"a\":1.5e}",
            "{\"a\":1e+}",
            "{\"a\":\"x",
            "{\"a\":\"\\x\"}",
            "{\"a\":\"\\u12G4\"}",
            "{\"a\":\"\\u12",
            "{\"a\":\"tab\there\"}",
            "{\"a\\tb\":1}",
            "{\"\\ud800\":1}",
            "{\"\\udc00\":1}",
            "{\"\\ud800\\u0041\":1}",
            "{\"\\ud800x\":1}",
            "{\"\\ud800\\x\":1}",
            "{\"\\ud800",
            "{\"a\":\"\\ud800\"}",
            "{\"a\":1} x",
            "{\"a\":1}\n\n  }",
            "{\n\"a\":\n[1,\n2,\n}",
            "{\"a\":[[[[[[",
            "{\"a\":{\"b\":{\"c\":[1,{\"d\":]}}}}",
            "{1:2}",
            "{\"a\":1,\"b\"",
            "{\"a\":1,",
            "{\"a\":\"é\u{1}\"}",
        ] {
            agrees(src);
        }
    }

    #[test]
    fn values_of_other_types_are_read_as_serde_json_reads_them() {
        for src in [
            "[1]",
            "[",
            "x",
            " ]",
            "nul",
            "null x",
            "tx",
            "f",
            "\"s",
            "\"s\" 1",
            "\"\\ud800\"",
            "-",
            "-x",
            "01",
            "1.",
            "1.x",
            "1e",
            "1e+",
            "1ex",
            "12345678901234567890123.5e7",
            "1e400",
            "-0",
            "7 }",
        ] {
            agrees(src);
        }
    }
}

#[cfg(test)]
mod properties {
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

        /// Text made of JSON's own characters, opened as an object.
        #[test]
        fn agrees_with_serde_json_on_near_json(body in "[{}\\[\\],:\" a0-9eE.+\\-\\\\ufnrtlsd\n\t\u{1}é]{0,40}") {
            super::tests::agrees(&format!("{{{body}"));
        }

        /// The same characters, opened any way.
        #[test]
        fn agrees_with_serde_json_on_any_near_json(body in "[{}\\[\\],:\" a0-9eE.+\\-\\\\ufnrtlsd\n\t\u{1}é]{0,40}") {
            super::tests::agrees(&body);
        }

        /// Valid objects cut short or with one byte changed.
        #[test]
        fn agrees_with_serde_json_on_damaged_objects(
            value in any::<u32>(),
            cut in 0usize..60,
            at in 0usize..60,
            with in prop::sample::select(vec!['"', '\\', ',', ':', '}', ']', '[', '{', 'x', ' ', '1', '\n']),
        ) {
            let src = format!(r#"{{"a":[1,-2.5e3,true,null,"s\n\u00e9"],"b":{{"c":"d"}},"e":{value}}}"#);
            let cut = &src[..cut.min(src.len())];
            super::tests::agrees(cut);
            let mut changed: Vec<char> = src.chars().collect();
            let at = at.min(changed.len() - 1);
            changed[at] = with;
            super::tests::agrees(&changed.into_iter().collect::<String>());
        }
    }
}
