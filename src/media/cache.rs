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
/// one line of JSON with everything but the payload, then the payload.
pub fn encode_entry(prepared: &Prepared) -> Vec<u8> {
    let facts =
        |f: &MediaFacts| serde_json::json!([f.media_type.as_str(), f.bytes, f.width, f.height]);
    let steps: Vec<_> = prepared
        .fitting
        .iter()
        .map(|s| serde_json::json!([s.width, s.height, s.quality, s.bytes, s.measured]))
        .collect();
    let head = serde_json::json!({
        "v": 1,
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

/// Read what [`encode_entry`] wrote; `None` for anything else (a torn or
/// foreign file is a miss, not an error).
pub fn decode_entry(bytes: &[u8]) -> Option<Prepared> {
    let newline = memchr::memchr(b'\n', bytes)?;
    let head: serde_json::Value = serde_json::from_slice(&bytes[..newline]).ok()?;
    if head["v"] != 1 {
        return None;
    }
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
        bytes: bytes[newline + 1..].to_vec(),
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
        for junk in [&b""[..], b"{}\n", b"not json\nx", b"{\"v\":2}\nx"] {
            assert!(decode_entry(junk).is_none());
        }
        let whole = encode_entry(&pdf);
        assert!(
            decode_entry(&whole[..whole.iter().position(|&b| b == b'\n').unwrap() - 3]).is_none()
        );
    }
}
