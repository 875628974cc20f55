//! The record loop every rewrite of a history shares: verbatim bytes and
//! records that are no message copied as they are, each message offered
//! to the rewrite, progress reported every MiB.

use std::io::{self, Write};

use crate::history::{Chunk, IntoHistoryReader, Message, RawRecord};

use super::{Notes, RecordNote};

/// What a rewrite did with one message.
pub(crate) enum Rewrite {
    /// It wrote the record itself (changed).
    Written,
    /// Nothing changed: the record is copied as it is.
    Unchanged,
}

/// Counts over a whole run.
#[derive(Default)]
pub(crate) struct Tally {
    pub records: usize,
    pub bad_records: Notes,
    pub bytes_in: u64,
}

/// Read every chunk of `input` and write it to `output`: each message
/// goes through `each` (given the record, its message, a note maker for
/// its position, and the output), anything else is copied.
pub(crate) fn rewrite<W: Write>(
    input: impl IntoHistoryReader,
    output: &mut W,
    mut progress: impl FnMut(u64),
    mut each: impl FnMut(
        &RawRecord<'_>,
        &Message<'_>,
        &dyn Fn(String) -> RecordNote,
        &mut W,
    ) -> io::Result<Rewrite>,
) -> io::Result<Tally> {
    let mut tally = Tally::default();
    let mut reader = input.into_history_reader()?;
    let mut last_report = 0;
    while let Some(chunk) = reader.next_chunk()? {
        match chunk {
            Chunk::Verbatim(bytes) => output.write_all(bytes)?,
            Chunk::Record(record) => {
                tally.records += 1;
                let note = |what: String| RecordNote {
                    index: record.index,
                    line: record.line,
                    what,
                };
                match &record.message {
                    Ok(message) => {
                        if let Rewrite::Unchanged = each(&record, message, &note, output)? {
                            output.write_all(record.raw)?;
                        }
                    }
                    Err(e) => {
                        tally.bad_records.push(note(e.error.to_string()));
                        output.write_all(record.raw)?;
                    }
                }
            }
        }
        let consumed = reader.consumed();
        if consumed - last_report >= 1 << 20 {
            last_report = consumed;
            progress(consumed);
        }
    }
    tally.bytes_in = reader.consumed();
    progress(tally.bytes_in);
    output.flush()?;
    Ok(tally)
}
