//! How often each key of an `arguments` object was given, and its first value.

use std::collections::HashMap;

/// Objects of at most this many members have their keys counted by comparing them (no hash
/// map to build for the usual few arguments).
pub(super) const FEW_MEMBERS: usize = 16;

/// How often each key of an object was given, and its first value.
pub(super) enum KeyCounts<'a> {
    /// At most [`FEW_MEMBERS`] members: (key, count, first value), compared one by one.
    Few(Vec<(&'a [u8], usize, &'a str)>),
    /// More: a hash map, so that counting stays linear in the number of members.
    Many(HashMap<&'a [u8], (usize, &'a str)>),
}

impl<'a> KeyCounts<'a> {
    /// Counts for an object of `members` members.
    pub(super) fn for_members(members: usize) -> KeyCounts<'a> {
        if members <= FEW_MEMBERS {
            KeyCounts::Few(Vec::with_capacity(members))
        } else {
            KeyCounts::Many(HashMap::with_capacity(members.min(1024)))
        }
    }

    /// Counts one more member `key` (`value` kept when it is the first); how often it was given.
    pub(super) fn count(&mut self, key: &'a [u8], value: &'a str) -> usize {
        let count = match self {
            KeyCounts::Few(counts) => match counts.iter_mut().find(|(k, _, _)| *k == key) {
                Some((_, count, _)) => count,
                None => {
                    let index = counts.len();
                    counts.push((key, 0, value));
                    &mut counts[index].1
                }
            },
            KeyCounts::Many(counts) => &mut counts.entry(key).or_insert((0, value)).0,
        };
        *count += 1;
        *count
    }

    /// The first value given for `key`.
    pub(super) fn first(&self, key: &[u8]) -> Option<&'a str> {
        match self {
            KeyCounts::Few(counts) => counts.iter().find(|(k, _, _)| *k == key).map(|e| e.2),
            KeyCounts::Many(counts) => counts.get(key).map(|e| e.1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn few_and_many_members_are_counted_alike() {
        let keys = ["A", "b", "A", "c", "b", "A", "d"];
        let mut few = KeyCounts::Few(Vec::new());
        let mut many = KeyCounts::Many(HashMap::new());
        for (i, key) in keys.iter().enumerate() {
            let value = i.to_string().leak();
            assert_eq!(
                few.count(key.as_bytes(), value),
                many.count(key.as_bytes(), value)
            );
        }
        for key in ["A", "b", "c", "d", "e"] {
            assert_eq!(few.first(key.as_bytes()), many.first(key.as_bytes()));
        }
        assert_eq!(few.first(b"b"), Some("1"));
    }
}
