//! The JSON path of a deserialisation error (`jobs[3].epochs`), derived after the fact from the
//! error's line and column, so that documents are deserialised with plain `serde_json`.
//!
//! Why not track the path while deserialising (what `serde_path_to_error` does)? Tracking wraps
//! every visitor of every document type, which compiles the documents' whole serde code a second
//! time: about 108 KB of the npm package's wasm, for a path only an error ever needs. Here the
//! text before the error's position is scanned once, on the error path only, with a stack of the
//! objects and arrays open there. The result is the path the tracking gave, byte for byte
//! (`scenario/tests/parse_errors.rs` checks it against the tracking parser on a generated corpus
//! of bad documents); the rules below say where serde reports an error about a container rather
//! than the value at the position.
//!
//! Not covered: untagged enums (`#[serde(untagged)]`), which no document type has. serde reports
//! their "did not match any variant" only when leaving the enclosing struct, after its `}` when
//! the enum is the struct's last member; that position cannot be told apart from the `}` of an
//! enum value written as an object without knowing the types. A document type that adds one
//! needs a rule here, and the differential test shows the messages that differ once a bundled
//! scenario uses the field.

/// An object or array open at the error's position.
enum Frame {
    /// An object: the key whose value is being read (if any), and whether it was just read.
    Object { key: Option<String>, state: Member },
    /// An array: the index of the current element and whether that element has started.
    Array { index: usize, started: bool },
}

/// Where the scan is within an object member.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Member {
    /// After `{` or `,`: no member yet.
    Open,
    /// After the key string, before its `:`.
    Key,
    /// After the `:`: the value has started (or is about to).
    Value,
    /// After the value, before `,` or `}`.
    Done,
}

/// The path (`serde_path_to_error`'s notation, `.` for the top level) of the error `err` met
/// while deserialising `text`, whose message (without the position) is `msg`.
pub(crate) fn of_error(text: &str, err: &serde_json::Error, msg: &str) -> String {
    let mut end = offset(text, err.line(), err.column());
    let unit_variant = msg.starts_with("invalid type: unit variant, expected newtype variant");
    if unit_variant && end > 0 && text.as_bytes()[end - 1] == b'}' {
        // serde_json positions this error only when leaving the enclosing struct: after its
        // `}` when the enum was its last member. Scan to before the `}` instead.
        end -= 1;
    }
    let (mut frames, last_string, last_start) = scan(text, end);
    adjust(&mut frames, text.as_bytes(), end, last_start, msg);
    let mut path = String::new();
    for f in &frames {
        match f {
            Frame::Object { key: Some(k), .. } => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(k);
            }
            Frame::Array {
                index,
                started: true,
            } => path.push_str(&format!("[{index}]")),
            _ => {}
        }
    }
    // A newtype variant written as a bare string (`"utility": "sigmoid"`): serde reports it
    // inside the variant, as it would an error in the variant's value.
    if unit_variant {
        if let Some(variant) = last_string {
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(&variant);
        }
    }
    if path.is_empty() {
        path.push('.');
    }
    path
}

/// The byte offset of serde_json's (1-based line, 0-based byte column); 0 when it has none.
fn offset(text: &str, line: usize, column: usize) -> usize {
    if line == 0 {
        return 0;
    }
    // The line starts after the text's (line - 1)-th newline.
    let start = match line {
        1 => 0,
        _ => text
            .match_indices('\n')
            .nth(line - 2)
            .map_or(0, |(i, _)| i + 1),
    };
    (start + column).min(text.len())
}

/// Scans the (well-formed: `doc::parse` checked the whole text) JSON before `end`: the open
/// objects and arrays, outermost first, the last string value read (for enum variants) and
/// where the last value token began.
fn scan(text: &str, end: usize) -> (Vec<Frame>, Option<String>, Option<usize>) {
    let b = text.as_bytes();
    let mut frames: Vec<Frame> = Vec::new();
    let mut last_string = None;
    let mut last_start = None;
    let mut i = 0;
    while i < end {
        match b[i] {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'{' | b'[' => {
                value_starts(&mut frames);
                last_start = Some(i);
                frames.push(if b[i] == b'{' {
                    Frame::Object {
                        key: None,
                        state: Member::Open,
                    }
                } else {
                    Frame::Array {
                        index: 0,
                        started: false,
                    }
                });
                i += 1;
            }
            b'}' | b']' => {
                frames.pop();
                value_ends(&mut frames);
                i += 1;
            }
            b':' => {
                if let Some(Frame::Object { state, .. }) = frames.last_mut() {
                    *state = Member::Value;
                }
                i += 1;
            }
            b',' => {
                match frames.last_mut() {
                    Some(Frame::Object { key, state }) => {
                        *key = None;
                        *state = Member::Open;
                    }
                    Some(Frame::Array { index, started }) => {
                        *index += 1;
                        *started = false;
                    }
                    None => {}
                }
                i += 1;
            }
            b'"' => {
                let j = string_end(b, i);
                let s = decode(text.get(i..j).unwrap_or_default());
                match frames.last_mut() {
                    Some(Frame::Object {
                        key,
                        state: state @ Member::Open,
                    }) => {
                        *key = Some(s);
                        *state = Member::Key;
                    }
                    _ => {
                        value_starts(&mut frames);
                        value_ends(&mut frames);
                        last_string = Some(s);
                        last_start = Some(i);
                    }
                }
                i = j;
            }
            _ => {
                value_starts(&mut frames);
                last_start = Some(i);
                while i < b.len()
                    && !matches!(b[i], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
                {
                    i += 1;
                }
                value_ends(&mut frames);
            }
        }
    }
    (frames, last_string, last_start)
}

/// Where serde reports an error about a container rather than about the value at the
/// position. `last_start` is where the last value token (scalar, string, `[` or `{`) began.
///
/// serde_json reports most errors right after the bytes it consumed; the exceptions handled
/// here: a struct's duplicate field and an externally tagged enum's unknown variant are
/// reported after their key, but are about the struct or enum; a second member after an enum's
/// variant (`{"sigmoid": {..}, "table": []}`) is reported at its `,`, about the enum; an enum
/// written as a number, boolean, null or array is reported one byte into that value (its
/// first byte was peeked), about the value, and so is an enum written as `{}` (reported one
/// byte after its `}`). Missing fields and wrong lengths are reported
/// after the struct's closing bracket, so the scan has already left it.
fn adjust(frames: &mut Vec<Frame>, b: &[u8], end: usize, last_start: Option<usize>, msg: &str) {
    let peeked_value = last_start.is_some_and(|s| s + 1 == end);
    if msg.starts_with("expected value") && (peeked_value || closes_empty_object(b, end)) {
        // The value (an enum's) starts at the byte before: if it opened a container, the error
        // is about the container, not inside it.
        if matches!(
            frames.last(),
            Some(Frame::Array {
                index: 0,
                started: false
            }) | Some(Frame::Object {
                key: None,
                state: Member::Open
            })
        ) {
            frames.pop();
            value_starts(frames);
        }
        return;
    }
    let next = b.get(end).copied();
    let Some(top) = frames.last_mut() else {
        return;
    };
    match top {
        Frame::Object { key, state } => {
            let whole = msg.starts_with("duplicate field `")
                || msg.starts_with("expected value")
                || (msg.starts_with("unknown variant `") && *state == Member::Key);
            if whole {
                *key = None;
            }
        }
        Frame::Array { started, .. } => {
            // A struct written as an array with too many elements: the struct.
            if msg.starts_with("trailing characters") {
                *started = false;
            } else if !*started && !matches!(next, Some(b']') | None) {
                // The position is at the first byte of an element not yet consumed (serde_json
                // reports a wrong container type there): that element.
                *started = true;
            }
        }
    }
}

/// Whether the byte before `end` is the `}` of an empty object (`{}`, `{ }`).
fn closes_empty_object(b: &[u8], end: usize) -> bool {
    end >= 2
        && b[end - 1] == b'}'
        && b[..end - 1].iter().rev().find(|c| !c.is_ascii_whitespace()) == Some(&b'{')
}

fn value_starts(frames: &mut [Frame]) {
    if let Some(Frame::Array { started, .. }) = frames.last_mut() {
        *started = true;
    }
}

fn value_ends(frames: &mut [Frame]) {
    if let Some(Frame::Object { state, .. }) = frames.last_mut() {
        *state = Member::Done;
    }
}

/// The index after the string starting at `b[i] == '"'` (the text's end if unterminated).
fn string_end(b: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'"' => return j + 1,
            _ => j += 1,
        }
    }
    b.len()
}

/// The text of a JSON string literal (quotes included), escapes resolved (by the `Value`
/// parser the document layer has anyway, rather than one more string deserialiser).
fn decode(lit: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(lit) {
        Ok(serde_json::Value::String(s)) => s,
        _ => lit.to_string(),
    }
}
