//! Reusing what was prepared: an agent converts its history again before
//! every model call, and the screenshots of the turns before are the same
//! bytes each time.
//!
//! A [`CacheKey`] is a BLAKE3 hash of the source bytes and of every
//! parameter that changes what [`prepare_for`](super::prepare_for) writes
//! (the budget, the size limits and view, the types the destination
//! takes, the crate version that encodes). A [`PreparedCache`] maps keys
//! to prepared payloads; [`MemoryCache`] is the bounded, least recently
//! used one the crate ships, and [`encode_entry`] / [`decode_entry`] give
//! the byte form a cache on disk can store. A cached payload is the same
//! as a fresh one, byte for byte: only successes are cached, and the key
//! holds everything they depend on. A source that is not whole is never a
//! success (the check runs before anything is kept), so no entry exists for
//! it: it is checked, and refused, on every conversion.

use std::collections::HashMap;
use std::fmt;
use std::sync::Mutex;

use super::budget::{Budget, Measure};
use super::prepare::{FitStep, MediaFacts, Prepared};
use super::{MediaType, Policy};

/// What the pipeline accepts and writes, beyond the crate version: changed
/// whenever that does, so that an entry written before (by a build of the
/// same version, in a cache on disk) is never found. Revision 2 refuses
/// files that are not whole ([`check_whole`](super::check_whole)); an entry
/// of revision 1 may hold a corrupt source prepared as a success.
const PIPELINE_REVISION: &[u8] = b"\0pipeline 2";

/// What a prepared payload is looked up by.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct CacheKey([u8; 32]);

impl CacheKey {
    /// The key of preparing `bytes` (declared as `declared`, if it was)
    /// under `policy` and `budget` for a destination taking `accepts`.
    pub fn new(
        bytes: &[u8],
        declared: Option<MediaType>,
        policy: &Policy,
        budget: Budget,
        accepts: &[MediaType],
    ) -> CacheKey {
        let mut h = blake3::Hasher::new();
        // Who wrote it: another version may encode differently.
        h.update(b"tool-carrier prepare\0");
        h.update(env!("CARGO_PKG_VERSION").as_bytes());
        h.update(PIPELINE_REVISION);
        let mut word = |n: u64| {
            h.update(&n.to_le_bytes());
        };
        word(declared.map_or(0, |t| t as u64 + 1));
        word(u64::from(policy.max_dim()));
        word(policy.max_pixels());
        word(policy.max_alloc());
        match policy.view() {
            None => word(0),
            Some(v) => {
                word(1 + u64::from(v.long_edge));
                word(v.max_short_edge.map_or(0, |s| 1 + u64::from(s)));
                word(v.max_pixels.map_or(0, |p| p.saturating_add(1)));
                word(v.max_patches.map_or(0, |p| p.saturating_add(1)));
                word(u64::from(v.patch));
            }
        }
        word(budget.image_cap() as u64);
        word(budget.document_cap() as u64);
        word(match budget.measure() {
            Measure::Base64 => 1,
            Measure::Raw => 2,
        });
        word(accepts.len() as u64);
        for t in accepts {
            word(*t as u64);
        }
        h.update(bytes);
        CacheKey(*h.finalize().as_bytes())
    }

    /// The key as 64 lowercase hex digits (a file name, say).
    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }
}

impl fmt::Debug for CacheKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CacheKey({})", &self.to_hex()[..16])
    }
}

/// Where prepared payloads are kept between conversions. Shared between
/// threads (and conversions), so `Send + Sync`; a cache that cannot store
/// or find an entry simply does not: it is never an error.
pub trait PreparedCache: Send + Sync {
    /// The payload prepared under `key`, if kept.
    fn get(&self, key: &CacheKey) -> Option<Prepared>;
    /// Keep `prepared` under `key`.
    fn put(&self, key: &CacheKey, prepared: &Prepared);
}

/// An in-memory [`PreparedCache`] of at most so many payload bytes; the
/// least recently used entries go first.
///
/// ```
/// use tool_carrier::media::{prepare, Budget, CacheKey, MemoryCache, Policy, PreparedCache};
/// # fn main() -> Result<(), tool_carrier::media::MediaError> {
/// let pdf = b"%PDF-1.7\nxref\n0 1\n0000000000 65535 f \ntrailer<<>>\nstartxref\n9\n%%EOF\n".to_vec();
/// let policy = Policy::default();
/// let key = CacheKey::new(&pdf, None, &policy, Budget::ANTHROPIC, &[]);
/// let cache = MemoryCache::new(1 << 20);
/// assert!(cache.get(&key).is_none());
/// cache.put(&key, &prepare(pdf, &policy, Budget::ANTHROPIC)?);
/// assert_eq!(cache.get(&key).unwrap().bytes, b"%PDF-1.7\nxref\n0 1\n0000000000 65535 f \ntrailer<<>>\nstartxref\n9\n%%EOF\n");
/// # Ok(()) }
/// ```
pub struct MemoryCache {
    max_bytes: usize,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    entries: HashMap<CacheKey, (u64, Prepared)>,
    bytes: usize,
    clock: u64,
}

impl MemoryCache {
    /// A cache holding at most `max_bytes` of payloads.
    pub fn new(max_bytes: usize) -> MemoryCache {
        MemoryCache {
            max_bytes,
            state: Mutex::new(State::default()),
        }
    }

    /// How many payloads it holds.
    pub fn len(&self) -> usize {
        self.lock().entries.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while the lock was held cannot leave the map in a state
        // worse than missing entries: go on with it.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl fmt::Debug for MemoryCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.lock();
        f.debug_struct("MemoryCache")
            .field("max_bytes", &self.max_bytes)
            .field("entries", &state.entries.len())
            .field("bytes", &state.bytes)
            .finish()
    }
}

impl PreparedCache for MemoryCache {
    fn get(&self, key: &CacheKey) -> Option<Prepared> {
        let mut state = self.lock();
        state.clock += 1;
        let now = state.clock;
        let (used, prepared) = state.entries.get_mut(key)?;
        *used = now;
        Some(prepared.clone())
    }

    fn put(&self, key: &CacheKey, prepared: &Prepared) {
        let size = prepared.bytes.len();
        if size > self.max_bytes {
            return;
        }
        let mut state = self.lock();
        state.clock += 1;
        let now = state.clock;
        if let Some((_, old)) = state.entries.insert(*key, (now, prepared.clone())) {
            state.bytes -= old.bytes.len();
        }
        state.bytes += size;
        while state.bytes > self.max_bytes {
            let oldest = state
                .entries
                .iter()
                .min_by_key(|(_, (used, _))| *used)
                .map(|(k, _)| *k);
            let Some(oldest) = oldest else { break };
            if let Some((_, gone)) = state.entries.remove(&oldest) {
                state.bytes -= gone.bytes.len();
            }
        }
    }
}

/// The byte form of a prepared payload, for a cache that stores bytes:
/// one line of JSON with everything but the payload (its length and its
/// BLAKE3 hash among it), then the payload.
pub fn encode_entry(prepared: &Prepared) -> Vec<u8> {
    let facts =
        |f: &MediaFacts| serde_json::json!([f.media_type.as_str(), f.bytes, f.width, f.height]);
    let steps: Vec<_> = prepared
        .fitting
        .iter()
        .map(|s| serde_json::json!([s.width, s.height, s.quality, s.bytes, s.measured]))
        .collect();
    let head = serde_json::json!({
        "v": ENTRY_VERSION,
        "len": prepared.bytes.len(),
        "blake3": blake3::hash(&prepared.bytes).to_hex().as_str(),
        "type": prepared.media_type.as_str(),
        "width": prepared.width,
        "height": prepared.height,
        "original": facts(&prepared.original),
        "resized": prepared.resized,
        "reencoded": prepared.reencoded,
        "first_frame_only": prepared.first_frame_only,
        "quality": prepared.quality,
        "fitting": steps,
    });
    let mut out = head.to_string().into_bytes();
    out.push(b'\n');
    out.extend_from_slice(&prepared.bytes);
    out
}

/// The entry format [`encode_entry`] writes. Version 1 held no length and
/// no hash, so a file cut short read back as a shorter payload; it is
/// [`EntryError::Foreign`] now, prepared again and replaced.
const ENTRY_VERSION: u64 = 2;

/// Why bytes are not an entry [`encode_entry`] wrote, whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum EntryError {
    /// Not an entry of this version: no head line, a head that is not
    /// this version's, or one that does not hold every fact.
    Foreign,
    /// The payload is shorter or longer than its head says (a file cut
    /// short, or written to twice).
    Length {
        /// The length the head gives.
        expected: usize,
        /// The length found.
        found: usize,
    },
    /// The payload is as long as its head says but its hash differs: a
    /// byte changed.
    Hash,
}

impl std::fmt::Display for EntryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EntryError::Foreign => f.write_str("not a prepared-image entry of this version"),
            EntryError::Length { expected, found } => {
                write!(
                    f,
                    "the payload is {found} bytes where its head says {expected}"
                )
            }
            EntryError::Hash => f.write_str("the payload's hash is not the one its head gives"),
        }
    }
}

impl std::error::Error for EntryError {}

/// Read what [`encode_entry`] wrote, checking that it is whole: its
/// payload has the length and the hash its head gives.
///
/// # Errors
/// [`EntryError`]: a foreign or older file, or a damaged one. A cache
/// treats each as a miss: the payload is prepared again and the entry
/// replaced.
pub fn decode_entry(bytes: &[u8]) -> Result<Prepared, EntryError> {
    let newline = memchr::memchr(b'\n', bytes).ok_or(EntryError::Foreign)?;
    let head: serde_json::Value =
        serde_json::from_slice(&bytes[..newline]).map_err(|_| EntryError::Foreign)?;
    if head["v"] != ENTRY_VERSION {
        return Err(EntryError::Foreign);
    }
    let payload = &bytes[newline + 1..];
    let expected = head["len"]
        .as_u64()
        .and_then(|n| usize::try_from(n).ok())
        .ok_or(EntryError::Foreign)?;
    if payload.len() != expected {
        return Err(EntryError::Length {
            expected,
            found: payload.len(),
        });
    }
    let hash = head["blake3"]
        .as_str()
        .and_then(|h| blake3::Hash::from_hex(h).ok())
        .ok_or(EntryError::Foreign)?;
    // `blake3::Hash`'s equality is constant-time; here it need only be right.
    if blake3::hash(payload) != hash {
        return Err(EntryError::Hash);
    }
    decode_head(&head, payload).ok_or(EntryError::Foreign)
}

/// The payload with the facts its head gives; `None` when a fact is
/// missing or out of range.
fn decode_head(head: &serde_json::Value, payload: &[u8]) -> Option<Prepared> {
    let media_type = |v: &serde_json::Value| MediaType::from_mime(v.as_str()?);
    let dim = |v: &serde_json::Value| -> Option<Option<u32>> {
        match v {
            serde_json::Value::Null => Some(None),
            v => Some(Some(u32::try_from(v.as_u64()?).ok()?)),
        }
    };
    let original = &head["original"];
    let original = MediaFacts {
        media_type: media_type(&original[0])?,
        bytes: usize::try_from(original[1].as_u64()?).ok()?,
        width: dim(&original[2])?,
        height: dim(&original[3])?,
    };
    let mut fitting = Vec::new();
    for s in head["fitting"].as_array()? {
        fitting.push(FitStep {
            width: u32::try_from(s[0].as_u64()?).ok()?,
            height: u32::try_from(s[1].as_u64()?).ok()?,
            quality: match &s[2] {
                serde_json::Value::Null => None,
                q => Some(u8::try_from(q.as_u64()?).ok()?),
            },
            bytes: usize::try_from(s[3].as_u64()?).ok()?,
            measured: usize::try_from(s[4].as_u64()?).ok()?,
        });
    }
    Some(Prepared {
        media_type: media_type(&head["type"])?,
        bytes: payload.to_vec(),
        width: dim(&head["width"])?,
        height: dim(&head["height"])?,
        original,
        resized: head["resized"].as_bool()?,
        reencoded: head["reencoded"].as_bool()?,
        first_frame_only: head["first_frame_only"].as_bool()?,
        quality: match &head["quality"] {
            serde_json::Value::Null => None,
            q => Some(u8::try_from(q.as_u64()?).ok()?),
        },
        fitting,
        encoded: Default::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PDF: &[u8] =
        b"%PDF-1.7\nxref\n0 1\n0000000000 65535 f \ntrailer<<>>\nstartxref\n9\n%%EOF\n";

    fn prepared(bytes: &[u8]) -> Prepared {
        super::super::prepare(bytes.to_vec(), &Policy::default(), Budget::ANTHROPIC).unwrap()
    }

    fn key(n: u8) -> CacheKey {
        CacheKey::new(&[n], None, &Policy::default(), Budget::ANTHROPIC, &[])
    }

    #[test]
    fn every_parameter_is_in_the_key() {
        let bytes = b"same bytes";
        let p = Policy::default();
        let base = CacheKey::new(bytes, None, &p, Budget::ANTHROPIC, &[MediaType::Png]);
        let others = [
            CacheKey::new(
                b"other bytes",
                None,
                &p,
                Budget::ANTHROPIC,
                &[MediaType::Png],
            ),
            CacheKey::new(
                bytes,
                Some(MediaType::Png),
                &p,
                Budget::ANTHROPIC,
                &[MediaType::Png],
            ),
            CacheKey::new(
                bytes,
                None,
                &p.clone().with_max_dim(1000),
                Budget::ANTHROPIC,
                &[MediaType::Png],
            ),
            CacheKey::new(
                bytes,
                None,
                &p.clone().with_view(crate::media::View::new(1568)),
                Budget::ANTHROPIC,
                &[MediaType::Png],
            ),
            CacheKey::new(bytes, None, &p, Budget::BEDROCK, &[MediaType::Png]),
            CacheKey::new(
                bytes,
                None,
                &p,
                Budget::ANTHROPIC,
                &[MediaType::Png, MediaType::Jpeg],
            ),
        ];
        for other in others {
            assert_ne!(base, other);
        }
        assert_eq!(
            base,
            CacheKey::new(bytes, None, &p, Budget::ANTHROPIC, &[MediaType::Png])
        );
        assert_eq!(base.to_hex().len(), 64);
    }

    #[test]
    fn the_least_recently_used_go_first() {
        let pdf = prepared(PDF);
        let size = pdf.bytes.len();
        let cache = MemoryCache::new(size * 2);
        cache.put(&key(1), &pdf);
        cache.put(&key(2), &pdf);
        assert!(cache.get(&key(1)).is_some()); // 1 is now the most recent
        cache.put(&key(3), &pdf);
        assert!(cache.get(&key(2)).is_none());
        assert!(cache.get(&key(1)).is_some() && cache.get(&key(3)).is_some());
        assert_eq!(cache.len(), 2);
        // An entry larger than the whole cache is not kept.
        MemoryCache::new(size - 1).put(&key(4), &pdf);
    }

    #[test]
    fn entries_read_back_as_written_and_anything_else_is_a_miss() {
        let pdf = prepared(PDF);
        let back = decode_entry(&encode_entry(&pdf)).unwrap();
        assert_eq!(back.bytes, pdf.bytes);
        assert_eq!(back.media_type, pdf.media_type);
        assert_eq!(back.original, pdf.original);
        for junk in [
            &b""[..],
            b"{}\n",
            b"not json\nx",
            b"{\"v\":1}\nx",
            b"{\"v\":2}\nx",
        ] {
            assert_eq!(decode_entry(junk).unwrap_err(), EntryError::Foreign);
        }
        let whole = encode_entry(&pdf);
        let newline = whole.iter().position(|&b| b == b'\n').unwrap();
        assert_eq!(
            decode_entry(&whole[..newline - 3]).unwrap_err(),
            EntryError::Foreign
        );
    }

    /// A version-1 entry (no length, no hash) is not trusted: it is read
    /// as foreign, and prepared again by the cache that finds it.
    #[test]
    fn an_entry_of_the_first_version_is_foreign() {
        let whole = encode_entry(&prepared(PDF));
        let newline = whole.iter().position(|&b| b == b'\n').unwrap();
        let mut head: serde_json::Value = serde_json::from_slice(&whole[..newline]).unwrap();
        head["v"] = 1.into();
        let mut v1 = head.to_string().into_bytes();
        v1.extend_from_slice(&whole[newline..]);
        assert_eq!(decode_entry(&v1).unwrap_err(), EntryError::Foreign);
    }

    proptest::proptest! {
        /// An entry cut anywhere, or with any one byte of its payload
        /// changed, is refused; never read as a payload.
        #[test]
        fn a_cut_or_flipped_entry_is_never_a_payload(cut in 0usize..10_000, flip in 0usize..10_000, bit in 0u8..8) {
            let whole = encode_entry(&prepared(PDF));
            let cut = cut % whole.len();
            proptest::prop_assert!(decode_entry(&whole[..cut]).is_err());
            let newline = whole.iter().position(|&b| b == b'\n').unwrap();
            let at = newline + 1 + flip % (whole.len() - newline - 1);
            let mut flipped = whole.clone();
            flipped[at] ^= 1 << bit;
            proptest::prop_assert_eq!(decode_entry(&flipped).unwrap_err(), EntryError::Hash);
            let mut longer = whole.clone();
            longer.push(b'x');
            let too_long = matches!(decode_entry(&longer), Err(EntryError::Length { .. }));
            proptest::prop_assert!(too_long);
        }
    }
}
