//! Text from users (job ids, file names, field names) made safe to print on a terminal or in a
//! table: control characters (ESC, newline, carriage return, DEL, C1 codes) and bidirectional
//! overrides are written as `\u{..}` escapes, so an id cannot colour the terminal, move the
//! cursor, forge a table row or reorder what is shown. JSON output needs none of this (serde
//! escapes), only what is printed as text.
use std::borrow::Cow;

fn unsafe_char(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `s` with every control character and bidirectional override escaped (`\u{1b}`, `\n`, ...);
/// borrowed when there is nothing to escape.
pub fn terminal_safe(s: &str) -> Cow<'_, str> {
    if !s.chars().any(unsafe_char) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if unsafe_char(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::terminal_safe;

    #[test]
    fn escapes_controls_and_overrides_only() {
        assert_eq!(terminal_safe("resnet-1 ü 学"), "resnet-1 ü 学");
        assert_eq!(terminal_safe("a\u{1b}[31mb\nc"), "a\\u{1b}[31mb\\nc");
        assert_eq!(terminal_safe("x\u{202e}y\u{7f}"), "x\\u{202e}y\\u{7f}");
    }
}
