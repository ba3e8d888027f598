//! A node's own name, kept in the node when it is short (most are: `add_17`, `/layer.3/Add`) and
//! boxed otherwise. A graph of a million nodes had a million small name allocations, and the
//! kernel's zeroing of their fresh pages cost more than the allocations themselves (perf;
//! bench/HISTORY.md, "Issue 20, seventh session").

/// The longest name kept in place.
const SHORT: usize = 22;

#[derive(Clone)]
pub enum NodeName {
    Short { len: u8, bytes: [u8; SHORT] },
    Long(Box<str>),
}

impl NodeName {
    pub fn new(name: &str) -> NodeName {
        match name.len() {
            len @ 0..=SHORT => {
                let mut bytes = [0; SHORT];
                bytes[..len].copy_from_slice(name.as_bytes());
                NodeName::Short {
                    len: len as u8,
                    bytes,
                }
            }
            _ => NodeName::Long(name.into()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            NodeName::Short { len, bytes } => match bytes.get(..*len as usize) {
                // SAFETY: `bytes[..len]` is a copy of a whole `&str` (`NodeName::new`), never
                // changed since: valid UTF-8.
                Some(b) => unsafe { std::str::from_utf8_unchecked(b) },
                None => "",
            },
            NodeName::Long(s) => s,
        }
    }
}

impl std::fmt::Debug for NodeName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_every_length_come_back_whole() {
        let long = "名".repeat(20);
        for name in [
            "",
            "a",
            "add_17",
            "/layer.3/attention/Add",
            &"x".repeat(23),
            &long,
        ] {
            assert_eq!(NodeName::new(name).as_str(), name);
        }
        assert!(matches!(
            NodeName::new(&"x".repeat(22)),
            NodeName::Short { .. }
        ));
        assert!(matches!(NodeName::new(&"x".repeat(23)), NodeName::Long(_)));
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn a_name_takes_what_a_boxed_one_and_its_tag_take() {
        assert_eq!(std::mem::size_of::<NodeName>(), 24);
    }
}
