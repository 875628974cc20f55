//! A `SQLiteSession`'s database file (feature `sqlite`): the session's
//! rows read in the order the SDK reads them (`ORDER BY id`), each as a
//! line of [`read`](super::read) reads it: what `sqlite3 DB "select
//! message_data from agent_messages where session_id='…' order by id"`
//! prints, read alike, its notes and errors naming the row's place in
//! that order as its line.
//!
//! The file is opened read-only and never changed, and nothing is made
//! beside it: a database the SDK is writing (its write-ahead log beside
//! it) is read as of its last commit, the log included; one no program has
//! open is read as immutable, so that SQLite makes no `-shm` or `-wal` file
//! next to it.

use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use crate::media::store::MediaStore;
use crate::steps::audit::ImportOptions;
use crate::steps::imported::{ImportError, ImportedHistory};

use super::super::lines::Line;
use super::read::Items;

/// The SDK's default name of the items' table.
const TABLE: &str = "agent_messages";

fn sql(e: rusqlite::Error) -> ImportError {
    ImportError::Read(std::io::Error::other(format!("the SQLite database: {e}")))
}

fn refused(what: String) -> ImportError {
    ImportError::Read(std::io::Error::other(what))
}

/// Read session `session` (the only one, when `None`) of the database at
/// `path`.
///
/// # Errors
/// [`ImportError::Read`] when the file is no SQLite database of the SDK
/// (no `agent_messages` table), names no such session, or holds several
/// and none was named; a row's item as [`read`](super::read::read)'s.
pub(crate) fn read(
    path: &Path,
    session: Option<&str>,
    store: &mut dyn MediaStore,
    options: &ImportOptions,
) -> Result<ImportedHistory, ImportError> {
    let db = open(path)?;
    let table: Option<String> = db
        .query_row(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?1",
            [TABLE],
            |r| r.get(0),
        )
        .ok();
    if table.is_none() {
        return Err(refused(format!(
            "a SQLite database without the Agents SDK's `{TABLE}` table"
        )));
    }
    let mut ids = db
        .prepare(&format!(
            "SELECT DISTINCT session_id FROM {TABLE} ORDER BY session_id"
        ))
        .map_err(sql)?;
    let sessions: Vec<String> = ids
        .query_map([], |r| r.get(0))
        .and_then(Iterator::collect)
        .map_err(sql)?;
    let session = match (session, &sessions[..]) {
        (Some(s), _) if sessions.iter().any(|x| x == s) => s.to_owned(),
        (Some(s), _) => {
            return Err(refused(format!(
                "no session {s:?} (the database holds {})",
                listed(&sessions)
            )))
        }
        (None, [one]) => one.clone(),
        (None, []) => return Err(refused("the database holds no session".into())),
        (None, _) => {
            return Err(refused(format!(
                "the database holds {} sessions ({}): name one (--session)",
                sessions.len(),
                listed(&sessions)
            )))
        }
    };
    let mut rows = db
        .prepare(&format!(
            "SELECT message_data FROM {TABLE} WHERE session_id = ?1 ORDER BY id"
        ))
        .map_err(sql)?;
    let mut rows = rows.query([&session]).map_err(sql)?;
    let mut items = Items::new(store, options);
    let mut number = 0;
    while let Some(row) = rows.next().map_err(sql)? {
        number += 1;
        let text: String = row.get(0).map_err(sql)?;
        let line = Line {
            number,
            start: 0,
            text: &text,
        };
        let value = line.value()?;
        items.line(&line, value)?;
    }
    let mut out = items.finish()?;
    // Places in a database are no places in a text file.
    out.payloads.clear();
    Ok(out)
}

/// The database, read-only; immutable unless a write-ahead log is beside
/// it.
fn open(path: &Path) -> Result<Connection, ImportError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_URI;
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    let live = Path::new(&wal).exists();
    let text = path
        .to_str()
        .ok_or_else(|| refused(format!("{}: a path that is not UTF-8", path.display())))?;
    let mut uri = String::from("file:");
    for c in text.chars() {
        match c {
            '%' | '?' | '#' => uri.push_str(&format!("%{:02X}", c as u32)),
            c => uri.push(c),
        }
    }
    if !live {
        uri.push_str("?immutable=1");
    }
    Connection::open_with_flags(uri, flags).map_err(sql)
}

/// At most ten names, quoted.
fn listed(names: &[String]) -> String {
    let mut shown: Vec<String> = names.iter().take(10).map(|n| format!("{n:?}")).collect();
    if names.len() > 10 {
        shown.push(format!("and {} more", names.len() - 10));
    }
    shown.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::media::store::InlineStore;

    /// A database as the SDK makes it (WAL mode), its writer left open.
    fn sdk_db(dir: &Path, rows: &[(&str, &str)]) -> (std::path::PathBuf, Connection) {
        let path = dir.join("session.db");
        let db = Connection::open(&path).unwrap();
        db.execute_batch(
            "PRAGMA journal_mode=WAL;
             CREATE TABLE agent_sessions (session_id TEXT PRIMARY KEY);
             CREATE TABLE agent_messages (id INTEGER PRIMARY KEY AUTOINCREMENT,
                 session_id TEXT NOT NULL, message_data TEXT NOT NULL);",
        )
        .unwrap();
        for (session, data) in rows {
            db.execute(
                "INSERT INTO agent_messages (session_id, message_data) VALUES (?1, ?2)",
                [session, data],
            )
            .unwrap();
        }
        (path, db)
    }

    fn read_db(path: &Path, session: Option<&str>) -> Result<ImportedHistory, String> {
        read(path, session, &mut InlineStore, &ImportOptions::default()).map_err(|e| e.to_string())
    }

    #[test]
    fn a_live_session_is_read_from_its_log_and_nothing_is_left_beside_a_closed_one() {
        let dir = tempfile::tempdir().unwrap();
        let (path, writer) = sdk_db(
            dir.path(),
            &[
                ("s1", r#"{"role":"user","content":"First."}"#),
                (
                    "s1",
                    r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Yes."}]}"#,
                ),
            ],
        );
        // Committed to the log, not yet to the file itself.
        assert!(dir.path().join("session.db-wal").exists());
        let h = read_db(&path, None).unwrap();
        let roles: Vec<&str> = h.messages.iter().map(|m| m.role()).collect();
        assert_eq!(roles, ["user", "assistant"]);
        drop(writer);
        assert!(!dir.path().join("session.db-wal").exists());
        read_db(&path, Some("s1")).unwrap();
        let mut beside: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        beside.sort();
        assert_eq!(beside, ["session.db"]);
    }

    #[test]
    fn sessions_are_named_and_bad_rows_are_errors_naming_their_line() {
        let dir = tempfile::tempdir().unwrap();
        let (path, _writer) = sdk_db(
            dir.path(),
            &[
                ("b", r#"{"role":"user","content":"B."}"#),
                ("a", r#"{"role":"user","content":"A."}"#),
                ("a", "not json"),
            ],
        );
        assert_eq!(
            read_db(&path, None).unwrap_err(),
            "reading the input: the database holds 2 sessions (\"a\", \"b\"): name one (--session)"
        );
        assert_eq!(
            read_db(&path, Some("c")).unwrap_err(),
            "reading the input: no session \"c\" (the database holds \"a\", \"b\")"
        );
        assert_eq!(read_db(&path, Some("b")).unwrap().messages.len(), 1);
        let e = read_db(&path, Some("a")).unwrap_err();
        assert!(e.starts_with("line 2: not JSON"), "{e}");
        let other = dir.path().join("other.db");
        Connection::open(&other)
            .unwrap()
            .execute_batch("CREATE TABLE t (x)")
            .unwrap();
        assert_eq!(
            read_db(&other, None).unwrap_err(),
            "reading the input: a SQLite database without the Agents SDK's `agent_messages` table"
        );
    }
}
