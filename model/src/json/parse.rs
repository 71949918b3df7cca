//! JSON text to a [`Value`] tree, accepting exactly what serde_json
//! accepts and saying what it says where it stops (`expected `,` or `]` at
//! line 3 column 7`); `tests/json_parse.rs` holds the two together on the
//! committed files, on every prefix of a document and on mutated text.
//!
//! Why not `serde_json::from_str::<Value>`: in the page's WebAssembly its
//! reader (serde's visitor for `Value`, the generic deserializer and its
//! error text) was a sixth of the chart component, and this is a few
//! kilobytes. serde_json still writes every file and builds the tree's
//! types. Whole numbers stay `u64`/`i64` where they fit, as in serde_json;
//! floats are the exact nearest `f64` natively, and within a few units in
//! the last place in the page (`float.rs`).
//! One difference, on purpose: a key given twice in one object is refused,
//! naming its field, where serde_json keeps the last.
//! Nesting 128 arrays and objects deep is refused, as serde_json
//! refuses it, so a hostile file cannot exhaust the stack.

use serde_json::{Map, Number, Value};

use super::float::float;
use super::FieldError;

/// serde_json's recursion limit: the 128th level is refused.
const MAX_DEPTH: u32 = 128;

pub(super) fn parse(text: &str) -> Result<Value, FieldError> {
    let mut first = Parser::new(text, false);
    let value = first.document()?;
    // A syntax error anywhere comes first, as in serde_json; only a
    // document that parses and repeats a key is read again, to name it.
    if first.saw_duplicate {
        Parser::new(text, true).document()?;
    }
    Ok(value)
}

struct Parser<'a> {
    source: &'a str,
    /// `source`'s bytes.
    text: &'a [u8],
    at: usize,
    depth: u32,
    /// Stop at a repeated key with its field (the second reading).
    locate_duplicate: bool,
    saw_duplicate: bool,
}

impl<'a> Parser<'a> {
    fn new(source: &'a str, locate_duplicate: bool) -> Parser<'a> {
        Parser {
            source,
            text: source.as_bytes(),
            at: 0,
            depth: 0,
            locate_duplicate,
            saw_duplicate: false,
        }
    }

    fn document(&mut self) -> Result<Value, FieldError> {
        let value = self.value()?;
        self.blank();
        if self.at < self.text.len() {
            return Err(self.error_at_next("trailing characters"));
        }
        Ok(value)
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn blank(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.peek() {
            self.at += 1;
        }
    }

    /// `message at line L column C`, where C counts the bytes of the line
    /// up to and including the last one read, as serde_json counts.
    #[inline(never)]
    fn error(&self, message: &str) -> FieldError {
        let read = &self.text[..self.at.min(self.text.len())];
        let line = 1 + read.iter().filter(|&&b| b == b'\n').count();
        let column = read.len() - read.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        FieldError::new(format!("{message} at line {line} column {column}"))
    }

    /// The error after reading one more byte (serde_json reports the
    /// position of the byte that was wrong).
    fn error_at_next(&mut self, message: &str) -> FieldError {
        self.at += 1;
        self.error(message)
    }

    fn value(&mut self) -> Result<Value, FieldError> {
        self.blank();
        let Some(b) = self.peek() else {
            return Err(self.error("EOF while parsing a value"));
        };
        match b {
            b'n' => self.word("null", Value::Null),
            b't' => self.word("true", Value::Bool(true)),
            b'f' => self.word("false", Value::Bool(false)),
            b'"' => {
                self.at += 1;
                self.string().map(Value::String)
            }
            b'-' | b'0'..=b'9' => self.number().map(Value::Number),
            b'[' => self.nested(Parser::array),
            b'{' => self.nested(Parser::object),
            _ => Err(self.error_at_next("expected value")),
        }
    }

    fn word(&mut self, word: &str, value: Value) -> Result<Value, FieldError> {
        for &want in word.as_bytes() {
            match self.peek() {
                None => return Err(self.error("EOF while parsing a value")),
                Some(b) if b == want => self.at += 1,
                Some(_) => return Err(self.error_at_next("expected ident")),
            }
        }
        Ok(value)
    }

    fn nested(
        &mut self,
        read: fn(&mut Self) -> Result<Value, FieldError>,
    ) -> Result<Value, FieldError> {
        self.depth += 1;
        if self.depth >= MAX_DEPTH {
            return Err(self.error_at_next("recursion limit exceeded"));
        }
        self.at += 1;
        let value = read(self);
        self.depth -= 1;
        value
    }

    fn array(&mut self) -> Result<Value, FieldError> {
        let mut items = Vec::new();
        self.blank();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(Value::Array(items));
        }
        if self.peek().is_none() {
            return Err(self.error("EOF while parsing a list"));
        }
        loop {
            let at = items.len();
            items.push(self.value().map_err(|e| e.within_index(at))?);
            self.blank();
            match self.peek() {
                None => return Err(self.error("EOF while parsing a list")),
                Some(b']') => {
                    self.at += 1;
                    return Ok(Value::Array(items));
                }
                Some(b',') => {
                    self.at += 1;
                    self.blank();
                    if self.peek() == Some(b']') {
                        return Err(self.error_at_next("trailing comma"));
                    }
                }
                Some(_) => return Err(self.error_at_next("expected `,` or `]`")),
            }
        }
    }

    fn object(&mut self) -> Result<Value, FieldError> {
        let mut map = Map::new();
        self.blank();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(Value::Object(map));
        }
        loop {
            match self.peek() {
                None => return Err(self.error("EOF while parsing an object")),
                Some(b'"') => self.at += 1,
                Some(_) => return Err(self.error_at_next("key must be a string")),
            }
            let key = self.string()?;
            self.blank();
            match self.peek() {
                None => return Err(self.error("EOF while parsing an object")),
                Some(b':') => self.at += 1,
                Some(_) => return Err(self.error_at_next("expected `:`")),
            }
            let value = self.value().map_err(|e| e.within_key(&key))?;
            // serde_json keeps the last of two equal keys, so a file could
            // say `"status": "failed", "status": "ok"` and be read as ok.
            if map.contains_key(&key) {
                if self.locate_duplicate {
                    return Err(FieldError::new("is given twice in one object".into()).at_key(&key));
                }
                self.saw_duplicate = true;
            }
            map.insert(key, value);
            self.blank();
            match self.peek() {
                None => return Err(self.error("EOF while parsing an object")),
                Some(b'}') => {
                    self.at += 1;
                    return Ok(Value::Object(map));
                }
                Some(b',') => {
                    self.at += 1;
                    self.blank();
                    match self.peek() {
                        Some(b'}') => return Err(self.error_at_next("trailing comma")),
                        None => return Err(self.error("EOF while parsing a value")),
                        Some(_) => {}
                    }
                }
                Some(_) => return Err(self.error_at_next("expected `,` or `}`")),
            }
        }
    }

    /// The source between two byte offsets that fall before or after an
    /// ASCII byte, so on character boundaries (`get`: no panic path).
    fn source(&self, from: usize, to: usize) -> &str {
        self.source.get(from..to).unwrap_or_default()
    }

    /// After the opening quote. Runs of plain characters are copied as
    /// they stand; an escape writes the character it names.
    fn string(&mut self) -> Result<String, FieldError> {
        let mut out = String::new();
        let mut run = self.at;
        loop {
            let Some(b) = self.peek() else {
                return Err(self.error("EOF while parsing a string"));
            };
            match b {
                b'"' | b'\\' => {
                    out.push_str(self.source(run, self.at));
                    self.at += 1;
                    if b == b'"' {
                        return Ok(out);
                    }
                    self.escape(&mut out)?;
                    run = self.at;
                }
                0..=0x1f => {
                    self.at += 1;
                    return Err(self.error(
                        "control character (\\u0000-\\u001F) found while parsing a string",
                    ));
                }
                _ => self.at += 1,
            }
        }
    }

    /// After the backslash.
    fn escape(&mut self, out: &mut String) -> Result<(), FieldError> {
        let Some(b) = self.peek() else {
            return Err(self.error("EOF while parsing a string"));
        };
        self.at += 1;
        let c = match b {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => return self.unicode(out),
            _ => return Err(self.error("invalid escape")),
        };
        out.push(c);
        Ok(())
    }

    /// `\uXXXX`, a surrogate pair taking two.
    fn unicode(&mut self, out: &mut String) -> Result<(), FieldError> {
        let first = self.hex4()?;
        let code = match first {
            0xDC00..=0xDFFF => return Err(self.error("lone leading surrogate in hex escape")),
            0xD800..=0xDBFF => {
                if self.peek() != Some(b'\\') {
                    return Err(self
                        .cut_short("EOF while parsing a string", "unexpected end of hex escape"));
                }
                self.at += 1;
                if self.peek() != Some(b'u') {
                    return Err(self
                        .cut_short("EOF while parsing a string", "unexpected end of hex escape"));
                }
                self.at += 1;
                let second = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&second) {
                    return Err(self.error("lone leading surrogate in hex escape"));
                }
                0x10000 + ((u32::from(first) - 0xD800) << 10) + (u32::from(second) - 0xDC00)
            }
            n => u32::from(n),
        };
        let c = char::from_u32(code).ok_or_else(|| self.error("invalid unicode code point"))?;
        out.push(c);
        Ok(())
    }

    /// Something cut short: `eof` at the end of the text, else `wrong` at
    /// the byte that cannot continue it.
    fn cut_short(&mut self, eof: &str, wrong: &str) -> FieldError {
        match self.peek() {
            None => self.error(eof),
            Some(_) => self.error_at_next(wrong),
        }
    }

    fn hex4(&mut self) -> Result<u16, FieldError> {
        // serde_json takes the four bytes as a whole, or says EOF.
        if self.text.len() - self.at < 4 {
            self.at = self.text.len();
            return Err(self.error("EOF while parsing a string"));
        }
        let digits = &self.text[self.at..self.at + 4];
        self.at += 4;
        let mut n = 0u16;
        for &b in digits {
            let digit = match b {
                b'0'..=b'9' => b - b'0',
                b'a'..=b'f' => b - b'a' + 10,
                b'A'..=b'F' => b - b'A' + 10,
                _ => return Err(self.error("invalid escape")),
            };
            n = n * 16 + u16::from(digit);
        }
        Ok(n)
    }

    fn digits(&mut self) -> usize {
        let start = self.at;
        while let Some(b'0'..=b'9') = self.peek() {
            self.at += 1;
        }
        self.at - start
    }

    fn number(&mut self) -> Result<Number, FieldError> {
        let start = self.at;
        let negative = self.peek() == Some(b'-');
        if negative {
            self.at += 1;
        }
        match self.peek() {
            None => return Err(self.error("EOF while parsing a value")),
            Some(b'0') => {
                self.at += 1;
                if let Some(b'0'..=b'9') = self.peek() {
                    return Err(self.error_at_next("invalid number"));
                }
            }
            Some(b'1'..=b'9') => {
                self.digits();
            }
            Some(_) => return Err(self.error_at_next("invalid number")),
        }
        let whole_end = self.at;
        let mut fraction = false;
        if self.peek() == Some(b'.') {
            fraction = true;
            self.at += 1;
            if self.digits() == 0 {
                return Err(self.cut_short("EOF while parsing a value", "invalid number"));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            fraction = true;
            self.at += 1;
            let negative_exp = self.peek() == Some(b'-');
            if let Some(b'+' | b'-') = self.peek() {
                self.at += 1;
            }
            let digits_start = self.at;
            if self.digits() == 0 {
                return Err(self.cut_short("EOF while parsing a value", "invalid number"));
            }
            // serde_json adds the exponent up in an i32: where it would
            // overflow, a non-zero number with a positive exponent is out
            // of range right there, and anything else is zero.
            let mut exp: i32 = 0;
            for i in digits_start..self.at {
                let d = i32::from(self.text[i] - b'0');
                match exp.checked_mul(10).and_then(|e| e.checked_add(d)) {
                    Some(e) => exp = e,
                    None => {
                        let significant = self.text[start..whole_end]
                            .iter()
                            .chain(&self.text[whole_end..digits_start])
                            .any(|b| (b'1'..=b'9').contains(b));
                        if significant && !negative_exp {
                            self.at = i + 1;
                            return Err(self.error("number out of range"));
                        }
                        let zero = if negative { -0.0 } else { 0.0 };
                        return Number::from_f64(zero)
                            .ok_or_else(|| self.error("number out of range"));
                    }
                }
            }
        }
        // The text is ASCII digits and signs: always a `str`.
        let text = self.source(start, self.at);
        if !fraction {
            let whole = text.get(..whole_end - start).unwrap_or(text);
            let n = if negative {
                whole.parse::<i64>().ok().map(Number::from)
            } else {
                whole.parse::<u64>().ok().map(Number::from)
            };
            // serde_json reads `-0` as the float -0.0.
            if let Some(n) = n.filter(|n| !(negative && n.as_i64() == Some(0))) {
                return Ok(n);
            }
        }
        float(text)
            .and_then(Number::from_f64)
            .ok_or_else(|| self.error("number out of range"))
    }
}
