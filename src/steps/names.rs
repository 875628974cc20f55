//! Tool names and tool-call ids made to fit each provider's pattern,
//! consistently across one request: a call, its result and the tool's
//! declaration always get the same rewritten name, and two different
//! originals never end up as one.

use std::collections::{HashMap, HashSet};

use super::walk::Turn;

/// What a provider allows in an id or a name.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pattern {
    /// Characters allowed anywhere; others become `_`.
    pub allowed: fn(char) -> bool,
    /// Characters allowed first; otherwise `_` is put in front.
    pub first: fn(char) -> bool,
    /// Most characters.
    pub max_len: usize,
    /// Used for an empty original.
    pub fallback: &'static str,
    /// Whether an id must be exactly `max_len` characters of `allowed`
    /// ASCII letters and digits: one that is not is replaced by a hash of
    /// itself spelled in those characters.
    pub exact: bool,
}

/// `[A-Za-z0-9_-]`.
pub(crate) fn word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

fn any_char(_: char) -> bool {
    true
}

impl Pattern {
    /// Anthropic `tool_use.id`: `^[a-zA-Z0-9_-]+$` (64 kept as a bound).
    pub const ANTHROPIC_ID: Pattern = Pattern::new(word_char, 64, "call");
    /// Tool names at Anthropic, OpenAI and Bedrock: `^[a-zA-Z0-9_-]{1,64}$`.
    pub const TOOL_NAME: Pattern = Pattern::new(word_char, 64, "tool");
    /// Bedrock `toolUseId`: `^[a-zA-Z0-9_.:-]+$`, at most 64.
    pub const BEDROCK_ID: Pattern =
        Pattern::new(|c| word_char(c) || c == '.' || c == ':', 64, "call");
    /// OpenAI Chat tool-call ids: any characters, at most 40 (longer ones
    /// are refused with "string too long … maximum length 40").
    pub const OPENAI_ID: Pattern = Pattern::new(any_char, 40, "call");
    /// OpenAI Responses `call_id`: any characters, at most 64
    /// (`string_above_max_length`).
    pub const RESPONSES_ID: Pattern = Pattern::new(any_char, 64, "call");
    /// Ids where the API states no rule (Gemini, Ollama): kept, but made
    /// unique.
    pub const ANY_ID: Pattern = Pattern::new(any_char, usize::MAX, "call");
    /// No rule (Ollama documents none): names pass unchanged.
    pub const ANY: Pattern = Pattern::new(any_char, usize::MAX, "tool");
    /// Gemini function names: start with a letter or an underscore, then
    /// `[a-zA-Z0-9_.:-]`, at most 64.
    pub const GEMINI_NAME: Pattern = Pattern {
        allowed: |c| word_char(c) || c == '.' || c == ':',
        first: |c| c.is_ascii_alphabetic() || c == '_',
        max_len: 64,
        fallback: "tool",
        exact: false,
    };
    /// Mistral tool-call ids: exactly 9 of `a-z`, `A-Z`, `0-9` ("Tool call
    /// id was … but must be a-z, A-Z, 0-9, with a length of 9").
    pub const ALPHANUMERIC_9: Pattern = Pattern {
        allowed: |c| c.is_ascii_alphanumeric(),
        first: |c| c.is_ascii_alphanumeric(),
        max_len: 9,
        fallback: "call",
        exact: true,
    };

    const fn new(allowed: fn(char) -> bool, max_len: usize, fallback: &'static str) -> Pattern {
        Pattern {
            allowed,
            first: allowed,
            max_len,
            fallback,
            exact: false,
        }
    }

    /// `s` made to fit, on its own (no uniqueness).
    pub fn fit(&self, s: &str) -> String {
        if self.exact {
            let fits = s.chars().count() == self.max_len && s.chars().all(self.allowed);
            return if fits {
                s.to_owned()
            } else {
                hashed(s, 0, self.max_len)
            };
        }
        let mut out: String = s
            .chars()
            .map(|c| if (self.allowed)(c) { c } else { '_' })
            .collect();
        if out.chars().next().is_some_and(|c| !(self.first)(c)) {
            out.insert(0, '_');
        }
        let out: String = out.chars().take(self.max_len).collect();
        if out.is_empty() {
            self.fallback.to_owned()
        } else {
            out
        }
    }
}

/// `len` letters and digits from a 64-bit FNV-1a hash of `s` and `round`
/// (the same on every machine; a later round for a taken one).
fn hashed(s: &str, round: u64, len: usize) -> String {
    const DIGITS: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes().chain(round.to_le_bytes()) {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    (0..len)
        .map(|_| {
            let d = DIGITS[(h % 62) as usize];
            h /= 62;
            char::from(d)
        })
        .collect()
}

/// `n` in decimal, written into `buf`.
fn itoa(mut n: usize, buf: &mut [u8; 20]) -> &str {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    std::str::from_utf8(&buf[i..]).expect("ASCII digits")
}

/// `base_n`.
fn suffixed(base: &str, n: usize) -> String {
    let mut buf = [0; 20];
    let digits = itoa(n, &mut buf);
    let mut out = String::with_capacity(base.len() + 1 + digits.len());
    out.push_str(base);
    out.push('_');
    out.push_str(digits);
    out
}

/// One provider's rewriting of ids or names over a request.
pub(crate) struct Rename {
    pattern: Pattern,
    map: HashMap<String, String>,
    used: HashSet<String>,
    /// For each base and suffix width (for a fitted form no suffix cuts,
    /// and for a hash, the fitted form and 0), the first suffix (or hash
    /// round) not yet known to be taken:
    /// every smaller one was tried and found taken, and `used` only grows,
    /// so the search resumes there. Without it a history that reuses
    /// `call_1` every round searches from 2 each time, quadratic in the
    /// number of rounds; keyed by the cut base, ids that differ only past
    /// a length limit share their search too.
    next: HashMap<(String, usize), usize>,
}

impl Rename {
    pub fn new(pattern: Pattern) -> Rename {
        Rename {
            pattern,
            map: HashMap::new(),
            used: HashSet::new(),
            next: HashMap::new(),
        }
    }

    /// The rewritten form of `original`: the same every time it is asked,
    /// and different from that of every other original.
    pub fn get(&mut self, original: &str) -> String {
        if let Some(out) = self.map.get(original) {
            return out.clone();
        }
        let out = self.unique(self.pattern.fit(original));
        self.used.insert(out.clone());
        self.map.insert(original.to_owned(), out.clone());
        out
    }

    /// A new output for one occurrence of `original`: fitted like
    /// [`Rename::get`], and different from every output given so far,
    /// even for the same original (two calls that reused an id).
    pub fn fresh(&mut self, original: &str) -> String {
        let out = self.unique(self.pattern.fit(original));
        self.used.insert(out.clone());
        out
    }

    fn unique(&mut self, fitted: String) -> String {
        if !self.used.contains(&fitted) {
            return fitted;
        }
        if self.pattern.exact {
            // Rounds of a hash of the whole fitted form.
            let max_len = self.pattern.max_len;
            return self.search((fitted, 0), 1, |f, n| hashed(f, n as u64, max_len));
        }
        if fitted.chars().count().saturating_add(21) <= self.pattern.max_len {
            // No suffix (at most 20 digits) cuts it: the candidates are its
            // own, and so is where their search stands.
            return self.search((fitted, 0), 2, suffixed);
        }
        // `base_n`, the base cut so the suffix fits: every fitted form
        // with the same base shares the candidates of a suffix width, and
        // so where their search stands.
        let digits = |n: usize| n.checked_ilog10().map_or(1, |d| d as usize + 1);
        let mut n = 2usize;
        loop {
            let width = digits(n);
            let keep = self.pattern.max_len.saturating_sub(1 + width);
            let base = if fitted.len() <= keep {
                fitted.clone() // no cut: the common case, no walk over chars
            } else {
                fitted.chars().take(keep).collect()
            };
            let key = (base, width);
            if let Some(&resume) = self.next.get(&key) {
                n = n.max(resume);
                if digits(n) != width {
                    continue; // every suffix of this width is taken
                }
            }
            let candidate = suffixed(&key.0, n);
            n += 1;
            let free = !self.used.contains(&candidate);
            self.next.insert(key, n);
            if free {
                return candidate;
            }
        }
    }

    /// The first of `candidate(key.0, n)`, n = `start`, `start` + 1, …, not
    /// taken, resuming where the last search for `key` stopped.
    fn search(
        &mut self,
        key: (String, usize),
        start: usize,
        candidate: impl Fn(&str, usize) -> String,
    ) -> String {
        let mut n = self.next.get(&key).copied().unwrap_or(start);
        loop {
            let c = candidate(&key.0, n);
            n += 1;
            if !self.used.contains(&c) {
                self.next.insert(key, n);
                return c;
            }
        }
    }

    /// Reserve a name that must stay as it is (an Anthropic typed tool's
    /// fixed name), so no other original is rewritten onto it. Called
    /// before any [`Rename::get`].
    pub fn keep(&mut self, name: &str) {
        debug_assert!(!self.used.contains(name) || self.map.get(name).is_some_and(|n| n == name));
        self.used.insert(name.to_owned());
        self.map.insert(name.to_owned(), name.to_owned());
    }
}

/// Rewrite every call id and tool name of `turns` in place, in turn order.
///
/// Each call gets an id of its own, unique in the request (histories reuse
/// ids: `call_0` every turn), and the result paired with it — the walk puts
/// a batch's results right after their calls, in call order — gets the
/// same one.
pub(crate) fn rewrite(turns: &mut [Turn<'_>], ids: &mut Rename, names: &mut Rename) {
    let mut batch: Vec<String> = Vec::new();
    for turn in turns {
        match turn {
            Turn::Assistant(a) => {
                batch.clear();
                for call in &mut a.calls {
                    call.id = ids.fresh(&call.id);
                    batch.push(call.id.clone());
                    call.name = names.get(&call.name);
                }
            }
            Turn::Results(results) => {
                debug_assert_eq!(results.len(), batch.len());
                for (result, id) in results.iter_mut().zip(&batch) {
                    result.call_id = id.clone();
                    result.name = names.get(&result.name);
                }
            }
            Turn::System(..) | Turn::User(..) | Turn::Carrier(_) => {}
        }
    }
}

impl crate::facts::IdRule {
    /// The pattern ids are rewritten to.
    pub(crate) fn pattern(self) -> Pattern {
        match self {
            Self::Any => Pattern::ANY_ID,
            Self::Max40 => Pattern::OPENAI_ID,
            Self::Alphanumeric9 => Pattern::ALPHANUMERIC_9,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_stay_consistent_and_distinct() {
        let mut ids = Rename::new(Pattern::new(word_char, 8, "call"));
        assert_eq!(ids.get("call.1"), "call_1");
        assert_eq!(ids.get("call_1"), "call_1_2");
        assert_eq!(ids.get("call.1"), "call_1");
        assert_eq!(ids.get(""), "call");
        assert_eq!(ids.get("abcdefghijk"), "abcdefgh");
        assert_eq!(ids.get("abcdefghXYZ"), "abcdef_2");
    }

    #[test]
    fn a_reused_id_gets_a_fresh_output_each_time() {
        let mut ids = Rename::new(Pattern::ANTHROPIC_ID);
        assert_eq!(ids.fresh("call_0"), "call_0");
        assert_eq!(ids.fresh("call_0"), "call_0_2");
        assert_eq!(ids.fresh("call.0"), "call_0_3");
    }

    #[test]
    fn a_reused_id_resumes_its_search_where_it_stopped() {
        // Histories restart ids every round: the thousandth `call_1` gets
        // `call_1_1000`, and an original that fits onto a taken suffix
        // moves past it.
        let mut ids = Rename::new(Pattern::ANTHROPIC_ID);
        let out: Vec<String> = (0..1000).map(|_| ids.fresh("call_1")).collect();
        assert_eq!(out[0], "call_1");
        assert_eq!(out[999], "call_1_1000");
        assert_eq!(ids.next.get(&("call_1".to_owned(), 0)), Some(&1001));
        assert_eq!(ids.fresh("call_1_2"), "call_1_2_2");
        assert_eq!(ids.fresh("call_1"), "call_1_1001");
        let mut mistral = Rename::new(Pattern::ALPHANUMERIC_9);
        let hashed: std::collections::HashSet<String> =
            (0..1000).map(|_| mistral.fresh("call_1")).collect();
        assert_eq!(hashed.len(), 1000);
    }

    proptest::proptest! {
        /// Resuming gives what searching from the first suffix every time
        /// gives, for any ids, short limits (so bases are cut) included.
        #[test]
        fn the_resumed_search_finds_what_a_fresh_search_finds(
            originals in proptest::collection::vec("[ab_]{0,7}", 0..60),
            // Short limits cut the base; long ones never do.
            max_len in proptest::prop_oneof![3usize..9, 28usize..40],
        ) {
            let pattern = Pattern::new(word_char, max_len, "call");
            let mut ids = Rename::new(pattern);
            let mut used: HashSet<String> = HashSet::new();
            for original in &originals {
                let fitted = pattern.fit(original);
                let expected = if used.contains(&fitted) {
                    (2..)
                        .map(|n: usize| {
                            let suffix = format!("_{n}");
                            let keep = max_len.saturating_sub(suffix.len());
                            fitted.chars().take(keep).collect::<String>() + &suffix
                        })
                        .find(|c| !used.contains(c))
                        .unwrap()
                } else {
                    fitted
                };
                proptest::prop_assert_eq!(ids.fresh(original), expected.clone());
                used.insert(expected);
            }
        }
    }

    #[test]
    fn ids_that_differ_only_past_the_limit_share_their_search() {
        // Forty-character ids that differ in their last characters, each
        // reused: after the first round they all cut to the same base.
        let mut ids = Rename::new(Pattern::OPENAI_ID);
        let long = |k: usize| format!("{}{k:02}", "x".repeat(38));
        let mut seen = HashSet::new();
        for _ in 0..50 {
            for k in 0..20 {
                assert!(seen.insert(ids.fresh(&long(k))));
            }
        }
        // The 980 reused ones took `_2` … `_981`, one search for all.
        let base = "x".repeat(36);
        assert_eq!(ids.next.get(&(base, 3)).copied(), Some(982));
        assert!(seen.iter().all(|id| id.chars().count() <= 40));
    }

    #[test]
    fn openai_ids_are_cut_to_40_characters_without_merging() {
        let mut ids = Rename::new(Pattern::OPENAI_ID);
        let long = "toolu_".to_owned() + &"x".repeat(60);
        let a = ids.get(&long);
        let b = ids.get(&(long.clone() + "y"));
        assert_eq!(a.chars().count(), 40);
        assert_eq!(b.chars().count(), 40);
        assert_ne!(a, b);
        assert_eq!(ids.get(&long), a);
        assert_eq!(ids.get("call.1 é"), "call.1 é");
    }

    #[test]
    fn mistral_ids_are_nine_letters_or_digits_and_never_merge() {
        let mut ids = Rename::new(Pattern::ALPHANUMERIC_9);
        let a = ids.fresh("call_0");
        let b = ids.fresh("call_0");
        let kept = ids.fresh("aB3dE6gH9");
        assert_eq!(kept, "aB3dE6gH9");
        for id in [&a, &b] {
            assert!(
                id.len() == 9 && id.bytes().all(|c| c.is_ascii_alphanumeric()),
                "{id}"
            );
        }
        assert_ne!(a, b);
        assert_eq!(Pattern::ALPHANUMERIC_9.fit("call_0"), a);
        // A fitting id already taken gets a hash of its own.
        let again = ids.fresh("aB3dE6gH9");
        assert!(again != kept && again.len() == 9);
    }

    #[test]
    fn gemini_names_start_with_a_letter_or_underscore() {
        let p = Pattern::GEMINI_NAME;
        assert_eq!(p.fit("1st"), "_1st");
        assert_eq!(p.fit("mcp.fs:read-file"), "mcp.fs:read-file");
        assert_eq!(p.fit("a b"), "a_b");
        assert_eq!(p.fit("_x"), "_x");
        assert_eq!(p.fit(""), "tool");
    }

    #[test]
    fn kept_names_are_never_given_to_another_original() {
        let mut names = Rename::new(Pattern::TOOL_NAME);
        names.keep("computer");
        names.keep("computer_");
        assert_eq!(names.get("computer"), "computer");
        assert_eq!(names.get("computer!"), "computer__2");
        assert_eq!(names.get("computer_"), "computer_");
    }
}
