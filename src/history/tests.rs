//! The history reader's tests: byte-exact round trips, the records
//! and the errors.

use std::io::{BufRead, Read};

use super::*;

type Seen = (usize, usize, Result<(String, String), String>);

fn chunks(input: &[u8]) -> (Vec<u8>, Vec<Seen>) {
    let mut reader = HistoryReader::new(input).unwrap();
    let mut copy = Vec::new();
    let mut records = Vec::new();
    while let Some(chunk) = reader.next_chunk().unwrap() {
        match chunk {
            Chunk::Verbatim(b) => copy.extend_from_slice(b),
            Chunk::Record(r) => {
                copy.extend_from_slice(r.raw);
                let m = r
                    .message
                    .map(|m| (m.role.into_owned(), m.content.into_owned()))
                    .map_err(|e| e.to_string());
                records.push((r.index, r.line, m));
            }
        }
    }
    (copy, records)
}

#[test]
fn json_lines_round_trip_and_skip_blank_lines() {
    let input =
        b"\n{\"role\":\"user\",\"content\":\"a\"}\r\n  \n{\"role\":\"tool\",\"content\":\"b\"}";
    let (copy, recs) = chunks(input);
    assert_eq!(copy, input);
    assert_eq!(recs.len(), 2);
    assert_eq!(recs[0], (0, 2, Ok(("user".into(), "a".into()))));
    assert_eq!(recs[1], (1, 4, Ok(("tool".into(), "b".into()))));
}

#[test]
fn json_array_round_trips_with_element_spans() {
    let input = b" [\n {\"role\":\"user\",\"content\":\"a\"},\n\n {\"role\":\"tool\",\n \"content\":\"b\"} ]\n";
    let (copy, recs) = chunks(input);
    assert_eq!(copy, input);
    assert_eq!(recs[0], (0, 2, Ok(("user".into(), "a".into()))));
    assert_eq!(recs[1], (1, 4, Ok(("tool".into(), "b".into()))));
}

#[test]
fn bad_records_name_line_and_cause() {
    let input = b"{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"user\",\n[1]\n{\"role\":1,\"content\":\"x\"}\n{\"role\":\"u\",\"content\":2}\n{\"content\":\"x\"}\n\xff\xfe\n{\"role\":\"u\",\"content\":\"a\",\"content\":\"b\"}\n";
    let (copy, recs) = chunks(input);
    assert_eq!(copy, input);
    let errors: Vec<_> = recs.iter().filter_map(|r| r.2.clone().err()).collect();
    assert_eq!(
        errors,
        [
            "line 2: invalid JSON at column 15: EOF while parsing a value",
            "line 3: expected a JSON object",
            "line 4: \"role\" is not a string",
            "line 5: \"content\" is not a string",
            "line 6: no \"role\" member",
            "line 7: invalid UTF-8 at byte 0",
            "line 8: \"content\" appears twice, and readers disagree on which wins",
        ]
    );
}

#[test]
fn an_unreadable_array_is_one_bad_record_kept_whole() {
    let input = b"[{\"role\":\"user\",\"content\":\"a\"},";
    let (copy, recs) = chunks(input);
    assert_eq!(copy, input);
    assert_eq!(recs.len(), 1);
    assert!(recs[0]
        .2
        .as_ref()
        .unwrap_err()
        .starts_with("line 1: the JSON array cannot be read: EOF"));
}

#[test]
fn empty_input_has_no_records() {
    for input in [&b""[..], b"\n\n", b"   "] {
        let (copy, recs) = chunks(input);
        assert_eq!(copy, input);
        assert!(recs.is_empty());
    }
    let (_, recs) = chunks(b"[]");
    assert!(recs.is_empty());
}

fn input_error(e: &io::Error) -> InputError {
    assert_eq!(e.kind(), io::ErrorKind::InvalidData, "{e}");
    InputError::of(e).cloned().expect("an InputError")
}

#[test]
fn a_first_record_that_is_not_text_is_binary_at_its_first_bad_byte() {
    for (input, at) in [
        (&b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"[..], 0),
        (b"{\"role\":\"user\0\"}\n", 13),
        (b"\n \n{\"a\":\"\xff\"}\n", 9),
        (b"  \t{\"a\":\"\xc3\"}", 9),
        (b"PK\x03\x04\x14\0\x06", 5),
    ] {
        let err = HistoryReader::new(input).err().expect("refused");
        assert_eq!(input_error(&err), InputError::Binary { at }, "{input:?}");
        assert_eq!(
            err.to_string(),
            format!("not a JSON Lines history: binary data at byte {at}")
        );
    }
    assert!(matches!(
        read(&b"\0"[..]),
        Err(ReadError::Input(InputError::Binary { at: 0 }))
    ));
}

#[test]
fn only_the_first_records_first_8_kib_are_sniffed() {
    // A character the window cuts is not binary data.
    let mut input = b"{\"role\":\"user\",\"content\":\"".to_vec();
    input.resize(SNIFF - 1, b'a');
    input.extend_from_slice("é\"}\n".as_bytes());
    let (copy, recs) = chunks(&input);
    assert_eq!(copy, input);
    assert!(recs[0].2.is_ok(), "{:?}", recs[0].2);
    // Bytes past the window of the first record, and later records,
    // are records that are not messages.
    let mut input = b"{\"role\":\"user\",\"content\":\"".to_vec();
    input.resize(SNIFF + 10, b'a');
    input.extend_from_slice(b"\0\"}\n\xff\xfe\n\0\n");
    let (copy, recs) = chunks(&input);
    assert_eq!(copy, input);
    assert_eq!(recs.len(), 3);
    assert!(recs.iter().all(|r| r.2.is_err()));
    // A JSON array is one bad record.
    let (_, recs) = chunks(b"[\0\xff]");
    assert_eq!(recs[0].2, Err("line 1: invalid UTF-8 at byte 2".into()));
}

/// A history whose second record is `len` bytes long, made as it is
/// read, counting the bytes handed out.
struct LongLine {
    head: Vec<u8>,
    len: u64,
    at: u64,
    buf: Vec<u8>,
    handed: u64,
}

impl LongLine {
    const FIRST: &'static [u8] = b"{\"role\":\"user\",\"content\":\"a\"}\n";

    fn new(len: u64) -> LongLine {
        let mut head = LongLine::FIRST.to_vec();
        head.extend_from_slice(b"{\"role\":\"user\",\"content\":\"");
        LongLine {
            head,
            len,
            at: 0,
            buf: Vec::new(),
            handed: 0,
        }
    }

    fn byte(&self, i: u64) -> Option<u8> {
        let head = self.head.len() as u64;
        let tail = b"\"}\n{\"role\":\"user\",\"content\":\"b\"}\n";
        // The long record ends with the tail's first two bytes.
        let x_end = LongLine::FIRST.len() as u64 + self.len - 2;
        if i < head {
            Some(self.head[i as usize])
        } else if i < x_end {
            Some(b'x')
        } else {
            tail.get((i - x_end) as usize).copied()
        }
    }
}

impl Read for LongLine {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = {
            let buf = self.fill_buf()?;
            let n = buf.len().min(out.len());
            out[..n].copy_from_slice(&buf[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for LongLine {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.buf.is_empty() {
            self.buf = (self.at..self.at + 4096)
                .map_while(|i| self.byte(i))
                .collect();
        }
        Ok(&self.buf)
    }

    fn consume(&mut self, n: usize) {
        self.buf.drain(..n);
        self.at += n as u64;
        self.handed += n as u64;
    }
}

#[test]
fn the_long_line_source_is_the_history_it_says() {
    let mut text = String::new();
    LongLine::new(100).read_to_string(&mut text).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[1].len(), 100);
    assert!(Message::parse(lines[1]).is_ok());
}

#[test]
fn a_record_longer_than_the_limit_stops_the_reader_inside_it() {
    let mut source = LongLine::new(100 << 20);
    let limit = 1024;
    let mut reader = HistoryReader::new(&mut source)
        .unwrap()
        .with_max_record(limit);
    assert!(matches!(reader.next_chunk(), Ok(Some(Chunk::Record(_)))));
    assert!(matches!(
        reader.next_chunk(),
        Ok(Some(Chunk::Verbatim(b"\n")))
    ));
    let err = reader.next_chunk().unwrap_err();
    let want = InputError::TooLong {
        index: 1,
        line: 2,
        limit,
    };
    assert_eq!(input_error(&err), want);
    assert_eq!(
        err.to_string(),
        "record 1 (line 2) is longer than the 1 KiB limit"
    );
    // The error is final.
    assert_eq!(input_error(&reader.next_chunk().unwrap_err()), want);
    drop(reader);
    // Reading stopped within the limit and one buffer of the source:
    // the rest of the 100 MB line was never asked for.
    let bound = (LongLine::FIRST.len() + limit + 4096) as u64;
    assert!(source.handed <= bound, "{} > {bound}", source.handed);
}

#[test]
fn a_record_of_exactly_the_limit_is_read() {
    let read = |len: u64, limit: usize| {
        let mut reader = HistoryReader::new(LongLine::new(len))
            .unwrap()
            .with_max_record(limit);
        let mut records = 0;
        loop {
            match reader.next_chunk() {
                Ok(None) => return Ok(records),
                Ok(Some(Chunk::Record(r))) => {
                    assert!(r.message.is_ok());
                    records += 1;
                }
                Ok(Some(Chunk::Verbatim(_))) => {}
                Err(e) => return Err(input_error(&e)),
            }
        }
    };
    assert_eq!(read(5000, 5000), Ok(3));
    assert_eq!(
        read(5001, 5000),
        Err(InputError::TooLong {
            index: 1,
            line: 2,
            limit: 5000
        })
    );
    // The default holds 512 MiB.
    assert_eq!(
        HistoryReader::new(&b""[..]).unwrap().max_record(),
        DEFAULT_MAX_RECORD
    );
}

#[test]
fn a_json_array_is_held_to_the_limit_as_a_whole() {
    let input = b"[{\"role\":\"user\",\"content\":\"a\"}]";
    let mut reader = HistoryReader::new(&input[..])
        .unwrap()
        .with_max_record(input.len());
    while reader.next_chunk().unwrap().is_some() {}
    let mut reader = HistoryReader::new(&input[..])
        .unwrap()
        .with_max_record(input.len() - 1);
    let err = reader.next_chunk().unwrap_err();
    assert_eq!(
        input_error(&err),
        InputError::ArrayTooLong {
            limit: input.len() - 1
        }
    );
    let strict = HistoryReader::new(&input[..]).unwrap().with_max_record(8);
    assert_eq!(
        read(strict).unwrap_err().to_string(),
        "the JSON array is longer than the 8 bytes limit (an array is read whole)"
    );
}

#[test]
fn sizes_are_said_in_the_largest_whole_unit() {
    assert_eq!(Size(512 << 20).to_string(), "512 MiB");
    assert_eq!(Size(1024).to_string(), "1 KiB");
    assert_eq!(Size(1536).to_string(), "1536 bytes");
    assert_eq!(Size(3 << 30).to_string(), "3072 MiB");
}

#[test]
fn cause_texts_never_say_not_a_message() {
    let (_, recs) = chunks(b"[1]\n{\"role\":1}\n{}\n{\"role\":\"\\ud800\",\"content\":\"\"}\n");
    for (_, _, r) in recs {
        let e = r.unwrap_err();
        assert!(!e.contains("message"), "{e}");
    }
}

#[test]
fn escaped_keys_count_as_role_and_content() {
    let (_, recs) = chunks(br#"{"r\u006fle":"user","c\u006fntent":"x"}"#);
    assert_eq!(recs[0].2, Ok(("user".into(), "x".into())));
}
