//! PGN in the style of xiangqi PGN (`[Game "Jieqi"]`, `[Format "Chinese"|"WXF"|"ICCS"]`,
//! `[FEN]` for another start) with Jieqi's tags for the deal: `[Deal]` once known,
//! `[DealCommitment "sha256:…"]` while secret, `[DealSalt]` published with the deal;
//! `[RuleSet]` and `[CapturedIdentity]` for the rules.
//!
//! Moves may be written in any notation (each move is recognised on its own), with move
//! numbers `1.`, `1...` or `1、`, comments `{…}` and `;…`, clock comments
//! `{[%clk 0:09:58]}`, NAGs `$1`, marks `!`/`?`, variations `( … )`, and bracketed
//! Chinese remarks such as 「（叫将）」.

use super::jieqibox::{fen_fits, fen_of};
use super::{Adjustment, ReadRecordError, Record, RecordMove, advance, resolve_text};
use crate::notation::{Notation, write_move};
use crate::view::CapturedIdentity;
use crate::{Color, Deal, Position, RuleSet};

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Tag(String, String),
    Move(String),
    Mark(String),
    Comment(String),
    Open,
    Close,
    Result(String),
}

fn syntax(line: usize, why: impl Into<String>) -> ReadRecordError {
    ReadRecordError::Syntax {
        line,
        why: why.into(),
    }
}

fn is_result(w: &str) -> bool {
    matches!(w, "1-0" | "0-1" | "1/2-1/2" | "½-½" | "*")
}

/// Splits a word into an optional leading move number and the rest.
fn strip_move_number(w: &str) -> &str {
    let digits = w.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return w;
    }
    let rest = &w[digits..];
    let dots = rest.len() - rest.trim_start_matches('.').len();
    let stripped = rest.trim_start_matches(['.', '…']);
    let stripped = stripped.trim_start_matches(['、', '，', '．']);
    // "33.4" is a WXF pawn move, not move 33: a digit right after a single dot.
    let digit_next = stripped.starts_with(|c: char| c.is_ascii_digit());
    if stripped.len() < rest.len() && (!digit_next || dots >= 3) {
        stripped
    } else {
        w
    }
}

fn tokenize(text: &str) -> Result<Vec<(usize, Token)>, ReadRecordError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line = 1;
    let mut line_start = true;
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            line_start = true;
            i += 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let at_line_start = line_start;
        line_start = false;
        match c {
            '%' if at_line_start => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            ';' => {
                let s = i + 1;
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                out.push((
                    line,
                    Token::Comment(chars[s..i].iter().collect::<String>().trim().to_string()),
                ));
            }
            '{' => {
                let (l0, s) = (line, i + 1);
                i += 1;
                while i < chars.len() && chars[i] != '}' {
                    if chars[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
                if i >= chars.len() {
                    return Err(syntax(l0, "a comment '{' is never closed"));
                }
                out.push((
                    l0,
                    Token::Comment(chars[s..i].iter().collect::<String>().trim().to_string()),
                ));
                i += 1;
            }
            '[' => {
                let l0 = line;
                i += 1;
                let s = i;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                let name: String = chars[s..i].iter().collect();
                while i < chars.len() && chars[i].is_whitespace() && chars[i] != '\n' {
                    i += 1;
                }
                if name.is_empty() || i >= chars.len() || chars[i] != '"' {
                    return Err(syntax(l0, "a tag is written [Name \"value\"]"));
                }
                i += 1;
                let mut value = String::new();
                loop {
                    match chars.get(i) {
                        None | Some('\n') => {
                            return Err(syntax(
                                l0,
                                format!("the value of tag [{name}] is not closed"),
                            ));
                        }
                        Some('\\') if matches!(chars.get(i + 1), Some('"' | '\\')) => {
                            value.push(chars[i + 1]);
                            i += 2;
                        }
                        Some('"') => {
                            i += 1;
                            break;
                        }
                        Some(&ch) => {
                            value.push(ch);
                            i += 1;
                        }
                    }
                }
                while i < chars.len() && chars[i].is_whitespace() && chars[i] != '\n' {
                    i += 1;
                }
                if chars.get(i) != Some(&']') {
                    return Err(syntax(l0, format!("tag [{name}] has no closing ']'")));
                }
                i += 1;
                out.push((l0, Token::Tag(name, value)));
            }
            '(' => {
                out.push((line, Token::Open));
                i += 1;
            }
            ')' => {
                out.push((line, Token::Close));
                i += 1;
            }
            '（' => {
                // A Chinese remark such as （叫将）.
                let s = i + 1;
                while i < chars.len() && chars[i] != '）' && chars[i] != '\n' {
                    i += 1;
                }
                out.push((line, Token::Comment(chars[s..i].iter().collect())));
                i += 1;
            }
            '$' => {
                let s = i;
                i += 1;
                while i < chars.len() && chars[i].is_ascii_digit() {
                    i += 1;
                }
                out.push((line, Token::Mark(chars[s..i].iter().collect())));
            }
            '}' | ']' => return Err(syntax(line, format!("unexpected {c:?}"))),
            _ => {
                let s = i;
                while i < chars.len()
                    && !chars[i].is_whitespace()
                    && !matches!(
                        chars[i],
                        '{' | '}' | '(' | ')' | '[' | ']' | ';' | '（' | '$'
                    )
                {
                    i += 1;
                }
                let word: String = chars[s..i].iter().collect();
                push_word(&mut out, line, &word);
            }
        }
    }
    Ok(out)
}

fn push_word(out: &mut Vec<(usize, Token)>, line: usize, word: &str) {
    if is_result(word) {
        out.push((line, Token::Result(word.replace('½', "1/2"))));
        return;
    }
    let w = strip_move_number(word);
    // Pure punctuation between moves (；，。) and bare move numbers.
    let w = w.trim_matches(['；', '，', '。', '、', ';', ',']);
    if w.is_empty() || w.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return;
    }
    let mark_len = w
        .chars()
        .rev()
        .take_while(|c| matches!(c, '!' | '?' | '！' | '？'))
        .map(char::len_utf8)
        .sum::<usize>();
    let (body, mark) = w.split_at(w.len() - mark_len);
    if !body.is_empty() {
        out.push((line, Token::Move(body.to_string())));
    }
    if !mark.is_empty() {
        out.push((
            line,
            Token::Mark(mark.replace('！', "!").replace('？', "?")),
        ));
    }
}

/// What a comment carries besides text: `[%clk 0:09:58]` (a clock), `[%eval 0.82,12]`
/// (an engine score in pawns, with the depth), `[%emt 0:00:01.25]` (the engine's time),
/// `[%fen …]` (the FEN after the move as a source wrote it) and `[%adjust "DATA" FEN]`
/// (a board edit). Commands that do not read are left in the text.
#[derive(Default)]
struct Commands {
    clock: Option<String>,
    eval: Option<(f64, Option<u32>)>,
    emt: Option<u64>,
    fen: Option<String>,
    adjust: Option<(String, String)>,
}

/// Takes the commands out of a comment: (commands, the rest of the text).
fn split_commands(c: &str) -> (Commands, Option<String>) {
    let mut cmds = Commands::default();
    let mut pieces: Vec<&str> = Vec::new();
    let mut s = c;
    while let Some(i) = s.find("[%") {
        let Some(e) = s[i..].find(']') else { break };
        let body = &s[i + 2..i + e];
        let (name, arg) = body.split_once(' ').unwrap_or((body, ""));
        let arg = arg.trim();
        let taken = match name {
            "clk" => {
                cmds.clock = Some(arg.to_string());
                true
            }
            "eval" => parse_eval(arg).map(|v| cmds.eval = Some(v)).is_some(),
            "emt" => parse_duration(arg).map(|v| cmds.emt = Some(v)).is_some(),
            "fen" if !arg.is_empty() => {
                cmds.fen = Some(arg.to_string());
                true
            }
            "adjust" => parse_adjust(arg).map(|v| cmds.adjust = Some(v)).is_some(),
            _ => false,
        };
        if taken {
            pieces.push(&s[..i]);
        } else {
            pieces.push(&s[..i + e + 1]);
        }
        s = &s[i + e + 1..];
    }
    pieces.push(s);
    // The text between the commands, its own spacing and line breaks kept.
    let rest: Vec<&str> = pieces
        .iter()
        .map(|p| p.trim())
        .filter(|p| !p.is_empty())
        .collect();
    let rest = (!rest.is_empty()).then(|| rest.join(" "));
    (cmds, rest)
}

/// Moves the decimal point of a plain decimal number two places (right: ×100, else
/// ÷100) on its text, so that no rounding creeps in: `0.125` ⇄ `12.5`.
fn shift_decimal(text: &str, right: bool) -> Option<String> {
    let (sign, t) = match text.strip_prefix('-') {
        Some(t) => ("-", t),
        None => ("", text.strip_prefix('+').unwrap_or(text)),
    };
    let (int, frac) = t.split_once('.').unwrap_or((t, ""));
    if (int.is_empty() && frac.is_empty())
        || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let mut digits = format!("{int}{frac}");
    let point = if right {
        int.len() + 2
    } else {
        let pad = 2usize.saturating_sub(int.len());
        digits.insert_str(0, &"0".repeat(pad));
        int.len() + pad - 2
    };
    if digits.len() < point {
        digits.push_str(&"0".repeat(point - digits.len()));
    }
    let (i, f) = digits.split_at(point);
    let i = i.trim_start_matches('0');
    let f = f.trim_end_matches('0');
    let i = if i.is_empty() { "0" } else { i };
    Some(if f.is_empty() {
        format!("{sign}{i}")
    } else {
        format!("{sign}{i}.{f}")
    })
}

/// `0.82` or `0.82,12`: a score in centipawns and a depth.
fn parse_eval(arg: &str) -> Option<(f64, Option<u32>)> {
    let (score, depth) = match arg.split_once(',') {
        Some((s, d)) => (s, Some(d.trim().parse().ok()?)),
        None => (arg, None),
    };
    let cp: f64 = shift_decimal(score.trim(), true)?.parse().ok()?;
    cp.is_finite().then_some((cp, depth))
}

/// A score in centipawns written in pawns, exactly (`82` → `0.82`, `12.5` → `0.125`).
fn eval_text(cp: f64, depth: Option<u32>) -> String {
    let s = if cp.fract() == 0.0 && cp.abs() < 1e15 {
        let n = cp as i64;
        let sign = if n < 0 { "-" } else { "" };
        format!("{sign}{}.{:02}", n.abs() / 100, n.abs() % 100)
    } else {
        shift_decimal(&format!("{cp}"), false).unwrap_or_else(|| format!("{}", cp / 100.0))
    };
    match depth {
        Some(d) => format!("{s},{d}"),
        None => s,
    }
}

/// `h:mm:ss.fff` (or `mm:ss.fff`, or seconds) in milliseconds.
fn parse_duration(arg: &str) -> Option<u64> {
    let parts: Vec<&str> = arg.split(':').collect();
    if parts.len() > 3 {
        return None;
    }
    let (last, whole) = parts.split_last()?;
    let (secs, frac) = last.split_once('.').unwrap_or((last, ""));
    if frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut total: u64 = 0;
    for p in whole.iter().chain([&secs]) {
        if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        total = total.checked_mul(60)?.checked_add(p.parse().ok()?)?;
    }
    let ms: u64 = format!("{frac:0<3}").parse().ok()?;
    total.checked_mul(1000)?.checked_add(ms)
}

/// Milliseconds as `h:mm:ss.fff`, the fraction left out when zero and cut of its
/// trailing zeros (the form of `[%emt]` and of the clocks `jieqi match` writes).
pub fn duration_text(ms: u64) -> String {
    let (s, f) = (ms / 1000, ms % 1000);
    let mut t = format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
    if f > 0 {
        t.push_str(format!(".{f:03}").trim_end_matches('0'));
    }
    t
}

/// `"DATA" FEN`, DATA a JSON string.
fn parse_adjust(arg: &str) -> Option<(String, String)> {
    let rest = arg.strip_prefix('"')?;
    let mut end = None;
    let mut escaped = false;
    for (i, ch) in rest.char_indices() {
        match ch {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => {
                end = Some(i);
                break;
            }
            _ => {}
        }
    }
    let end = end?;
    let data: String = serde_json::from_str(&arg[..end + 2]).ok()?;
    let fen = rest[end + 1..].trim();
    (!fen.is_empty()).then(|| (data, fen.to_string()))
}

/// The `[%adjust …]` command of an edit: DATA as a JSON string in which the brackets
/// and braces that would end the command or the comment are escaped.
fn adjust_text(data: &str, fen: &str) -> String {
    let q = super::json::quote(data)
        .replace(']', "\\u005d")
        .replace('{', "\\u007b")
        .replace('}', "\\u007d");
    format!("[%adjust {q} {fen}]")
}

fn add_comment(slot: &mut Option<String>, c: String) {
    match slot {
        Some(s) => {
            s.push(' ');
            s.push_str(&c);
        }
        None => *slot = Some(c),
    }
}

struct Reader<'a> {
    tokens: &'a [(usize, Token)],
    i: usize,
    deal: Option<Deal>,
    result: Option<String>,
    adjustments: Vec<Adjustment>,
}

impl Reader<'_> {
    /// Reads one line of moves from `pos` up to the end or a `)`.
    fn line(
        &mut self,
        mut pos: Position,
        first_ply: usize,
        depth: usize,
    ) -> Result<(Vec<RecordMove>, Option<String>), ReadRecordError> {
        let mut moves: Vec<RecordMove> = Vec::new();
        let mut before_last: Option<Position> = None;
        let mut lead_comment = None;
        while self.i < self.tokens.len() {
            let (line, tok) = &self.tokens[self.i];
            self.i += 1;
            match tok {
                Token::Tag(..) => {
                    if depth == 0 && self.result.is_some() {
                        // The next game of a multi-game file: left for the next read.
                        self.i -= 1;
                        break;
                    }
                    return Err(syntax(*line, "a tag after the moves began"));
                }
                Token::Move(text) => {
                    if self.result.is_some() && depth == 0 {
                        return Err(syntax(*line, format!("move {text:?} after the result")));
                    }
                    let ply = first_ply + moves.len();
                    let (m, rv) = resolve_text(&pos, text, ply)?;
                    before_last = Some(pos.clone());
                    advance(&mut pos, self.deal.as_ref(), m, rv);
                    moves.push(RecordMove::new(m, rv));
                }
                Token::Mark(m) => {
                    if let Some(last) = moves.last_mut() {
                        last.annotation = Some(m.clone());
                    }
                }
                Token::Comment(c) => {
                    let (cmds, rest) = split_commands(c);
                    if let Some((data, fen)) = cmds.adjust {
                        if depth > 0 {
                            return Err(syntax(*line, "a board edit [%adjust] inside a variation"));
                        }
                        let position = Position::from_fen(&fen)
                            .map_err(|e| syntax(*line, format!("[%adjust {data:?}]: {e}")))?;
                        pos = position.clone();
                        before_last = None;
                        self.adjustments.push(Adjustment {
                            at: moves.len(),
                            data,
                            fen,
                            position,
                            comment: rest,
                            json_keys: Vec::new(),
                        });
                        continue;
                    }
                    match moves.last_mut() {
                        Some(last) => {
                            if cmds.clock.is_some() {
                                last.clock = cmds.clock;
                            }
                            if let Some((score, depth)) = cmds.eval {
                                last.engine_score = Some(score);
                                last.engine_depth = depth;
                            }
                            if cmds.emt.is_some() {
                                last.engine_time = cmds.emt;
                            }
                            if cmds.fen.is_some() {
                                last.fen = cmds.fen;
                            }
                            if let Some(r) = rest {
                                add_comment(&mut last.comment, r);
                            }
                        }
                        None => {
                            if let Some(r) = rest {
                                add_comment(&mut lead_comment, r);
                            }
                        }
                    }
                }
                Token::Open => {
                    let Some(prev) = before_last.clone() else {
                        return Err(syntax(*line, "a variation '(' before any move"));
                    };
                    let ply = first_ply + moves.len() - 1;
                    let (var, lead) = self.line(prev, ply, depth + 1)?;
                    let mut var = var;
                    if let (Some(c), Some(first)) = (lead, var.first_mut()) {
                        let mut merged = Some(c);
                        if let Some(old) = first.comment.take() {
                            add_comment(&mut merged, old);
                        }
                        first.comment = merged;
                    }
                    if let Some(last) = moves.last_mut()
                        && !var.is_empty()
                    {
                        last.variations.push(var);
                    }
                }
                Token::Close => {
                    if depth == 0 {
                        return Err(syntax(*line, "')' without a matching '('"));
                    }
                    return Ok((moves, lead_comment));
                }
                Token::Result(r) => {
                    if depth == 0 {
                        self.result = Some(r.clone());
                    }
                }
            }
        }
        if depth > 0 {
            let line = self.tokens.last().map_or(0, |t| t.0);
            return Err(syntax(line, "a variation '(' is never closed"));
        }
        Ok((moves, lead_comment))
    }
}

fn tag_err(tag: &str, why: impl std::fmt::Display) -> ReadRecordError {
    ReadRecordError::Tag {
        tag: tag.to_string(),
        why: why.to_string(),
    }
}

/// Reads a PGN record (the first game of the text; later games are ignored).
pub fn read(text: &str) -> Result<Record, ReadRecordError> {
    read_game(&tokenize(text)?).map(|(rec, _)| rec)
}

/// Reads every game of a multi-game PGN text, in order. A game ends with its result
/// (`1-0`, `0-1`, `1/2-1/2` or `*` after the moves); the next one starts at its tags.
/// A text with no tags and no moves has no games.
pub fn read_all(text: &str) -> Result<Vec<Record>, ReadRecordError> {
    let tokens = tokenize(text)?;
    let mut rest = &tokens[..];
    let mut games = Vec::new();
    while !rest.is_empty() {
        let (rec, used) = read_game(rest)?;
        games.push(rec);
        rest = &rest[used..];
    }
    Ok(games)
}

/// Reads the game at the start of `tokens`: the record and how many tokens it took.
fn read_game(tokens: &[(usize, Token)]) -> Result<(Record, usize), ReadRecordError> {
    let mut rec = Record::new();
    let mut captured_identity = None;
    let mut i = 0;
    let mut tag_result = None;
    while let Some((_, Token::Tag(name, value))) = tokens.get(i) {
        i += 1;
        let v = value.trim();
        match name.to_ascii_lowercase().as_str() {
            "game" => {
                if !v.eq_ignore_ascii_case("jieqi") && !v.is_empty() {
                    return Err(tag_err(name, format!("{v:?} is not a Jieqi game")));
                }
            }
            "fen" => {
                rec.start = Position::from_fen(v).map_err(|e| tag_err(name, e))?;
                rec.start_fen = Some(v.to_string());
            }
            "deal" => rec.deal = Some(Deal::parse(v).map_err(|e| tag_err(name, e))?),
            "dealcommitment" => rec.deal_commitment = Some(v.to_string()),
            "dealsalt" => rec.deal_salt = Some(v.to_string()),
            "ruleset" => {
                rec.rules = RuleSet::by_name(v).ok_or_else(|| {
                    tag_err(name, format!("{v:?}: expected standard or tournament"))
                })?;
            }
            "capturedidentity" => {
                captured_identity = Some(CapturedIdentity::parse(v).ok_or_else(|| {
                    tag_err(
                        name,
                        format!("{v:?}: expected capturer, nobody or everyone"),
                    )
                })?);
            }
            "result" => tag_result = Some(v.to_string()),
            "format" => {}
            // "?" is PGN for unknown: nothing to keep.
            _ if matches!(v, "" | "?" | "????.??.??") => {}
            _ => rec.tags.push((name.clone(), value.clone())),
        }
    }
    if let Some(ci) = captured_identity {
        rec.rules.captured_identity = ci;
    }
    let mut reader = Reader {
        tokens: &tokens[i..],
        i: 0,
        deal: rec.deal,
        result: None,
        adjustments: Vec::new(),
    };
    let (moves, lead) = reader.line(rec.start.clone(), 1, 0)?;
    rec.moves = moves;
    rec.adjustments = reader.adjustments;
    rec.opening_comment = lead;
    rec.result = match (tag_result, reader.result) {
        (Some(t), Some(m)) if t != m && t != "*" && m != "*" => {
            return Err(tag_err(
                "Result",
                format!("the tag says {t} but the moves end with {m}"),
            ));
        }
        (Some(t), Some(m)) => {
            if t == "*" {
                m
            } else {
                t
            }
        }
        (Some(t), None) => t,
        (None, Some(m)) => m,
        (None, None) => "*".into(),
    };
    if !is_result(&rec.result) {
        return Err(tag_err(
            "Result",
            format!("{:?} is not 1-0, 0-1, 1/2-1/2 or *", rec.result),
        ));
    }
    Ok((rec, i + reader.i))
}

fn quote(v: &str) -> String {
    v.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The move number label for the ply `p` (0-based) of a line from `start`.
fn number(start: &Position, p: usize) -> (u32, Color) {
    let offset = usize::from(start.turn() == Color::Black);
    let n = start.fullmove() as usize + (p + offset) / 2;
    let color = if (p + offset) % 2 == 0 {
        Color::Red
    } else {
        Color::Black
    };
    (n as u32, color)
}

struct Writer<'a> {
    rec: &'a Record,
    notation: Notation,
    words: Vec<String>,
    /// Where move numbers count from: the start, or the last board edit and its ply.
    base: (Position, usize),
}

impl Writer<'_> {
    /// Writes the board edits after `at` main-line moves; returns the position after.
    fn adjustments(&mut self, at: usize, pos: Position) -> Position {
        let mut pos = pos;
        for a in self.rec.adjustments_at(at) {
            let mut c = adjust_text(&a.data, &a.fen);
            if let Some(t) = &a.comment {
                c.push(' ');
                c.push_str(&t.replace('}', ")"));
            }
            self.words.push(format!("{{{c}}}"));
            pos = a.position.clone();
            self.base = (pos.clone(), at);
        }
        pos
    }

    fn line(&mut self, moves: &[RecordMove], mut pos: Position, first_ply: usize, main: bool) {
        let mut need_number = true;
        for (k, m) in moves.iter().enumerate() {
            let p = first_ply + k;
            if main && self.rec.adjustments_at(p).next().is_some() {
                pos = self.adjustments(p, pos);
                need_number = true;
            }
            let (n, color) = number(&self.base.0, p - self.base.1.min(p));
            if color == Color::Red {
                self.words.push(format!("{n}."));
            } else if need_number {
                self.words.push(format!("{n}..."));
            }
            need_number = false;
            let rv = self.rec.effective_reveals(&pos, m);
            let mut w = write_move(&pos, m.mv, rv, self.notation);
            if let Some(a) = &m.annotation {
                if a.starts_with('$') {
                    self.words.push(w);
                    w = a.clone();
                } else if a.chars().all(|c| c == '!' || c == '?') {
                    w.push_str(a);
                } else {
                    // Free text (JieqiBox allows any annotation): a comment, so that
                    // it cannot run into the move and make it unreadable.
                    self.words.push(w);
                    w = format!("{{{}}}", a.replace(['{', '}'], ""));
                }
            }
            self.words.push(w);
            let mut after = pos.clone();
            after.play_unchecked(m.mv, rv);
            let mut commands = Vec::new();
            if let Some(c) = &m.clock {
                commands.push(format!("[%clk {c}]"));
            }
            if let Some(s) = m.engine_score {
                commands.push(format!("[%eval {}]", eval_text(s, m.engine_depth)));
            }
            if let Some(t) = m.engine_time {
                commands.push(format!("[%emt {}]", duration_text(t)));
            }
            if let Some(f) = &m.fen
                && *f != fen_of(&after)
                && !f.contains([']', '}'])
            {
                commands.push(format!("[%fen {f}]"));
            }
            let mut comment = commands.join(" ");
            if let Some(c) = &m.comment {
                if !comment.is_empty() {
                    comment.push(' ');
                }
                comment.push_str(&c.replace('}', ")"));
            }
            if !comment.is_empty() {
                self.words.push(format!("{{{comment}}}"));
                need_number = true;
            }
            for var in &m.variations {
                self.words.push("(".into());
                self.line(var, pos.clone(), p, false);
                self.words.push(")".into());
                need_number = true;
            }
            pos = after;
        }
        if main {
            self.adjustments(first_ply + moves.len(), pos);
        }
    }
}

/// Writes a record as PGN with moves in `notation`. Moves carry every identity the
/// record knows (from the deal when it has one), so the text replays on its own.
pub fn write(rec: &Record, notation: Notation) -> String {
    let mut out = String::new();
    let mut tag = |k: &str, v: &str| out.push_str(&format!("[{k} \"{}\"]\n", quote(v)));
    tag("Game", super::GAME_TAG);
    for (k, default) in [
        ("Event", "?"),
        ("Site", "?"),
        ("Date", "????.??.??"),
        ("Round", "?"),
        ("Red", "?"),
        ("Black", "?"),
    ] {
        tag(k, rec.tag(k).unwrap_or(default));
    }
    tag("Result", &rec.result);
    tag("Format", notation.format_tag());
    let written_fen = rec.start_fen.as_deref().filter(|f| fen_fits(f, &rec.start));
    if !rec.standard_start() || written_fen.is_some_and(|f| f != fen_of(&rec.start)) {
        tag(
            "FEN",
            &written_fen.map_or_else(|| rec.start.fen(), str::to_string),
        );
    }
    tag("RuleSet", rec.rules.name);
    tag("CapturedIdentity", rec.rules.captured_identity.name());
    for (k, v) in &rec.tags {
        if !matches!(
            k.to_ascii_lowercase().as_str(),
            "event" | "site" | "date" | "round" | "red" | "black"
        ) {
            tag(k, v);
        }
    }
    if let Some(d) = &rec.deal {
        tag("Deal", &d.to_string());
    }
    if let Some(c) = &rec.deal_commitment {
        tag("DealCommitment", c);
    }
    if let Some(s) = &rec.deal_salt {
        tag("DealSalt", s);
    }
    out.push('\n');
    let mut w = Writer {
        rec,
        notation,
        words: Vec::new(),
        base: (rec.start.clone(), 0),
    };
    if let Some(c) = &rec.opening_comment {
        w.words.push(format!("{{{}}}", c.replace('}', ")")));
    }
    w.line(&rec.moves, rec.start.clone(), 0, true);
    w.words.push(rec.result.clone());
    let mut width = 0;
    let mut glue = false;
    for word in w.words {
        let len = word.chars().count();
        if width > 0 && width + 1 + len > 80 {
            out.push('\n');
            width = 0;
        } else if width > 0 && !glue && word != ")" {
            out.push(' ');
            width += 1;
        }
        glue = word == "(";
        out.push_str(&word);
        width += len;
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_scores_are_written_in_pawns_exactly() {
        for (cp, text) in [
            (82.0, "0.82"),
            (-5.0, "-0.05"),
            (29995.0, "299.95"),
            (0.0, "0.00"),
            (12.5, "0.125"),
            (-1234.25, "-12.3425"),
        ] {
            assert_eq!(eval_text(cp, None), text);
            assert_eq!(parse_eval(text), Some((cp, None)));
        }
        assert_eq!(eval_text(82.0, Some(12)), "0.82,12");
        assert_eq!(parse_eval("0.82,12"), Some((82.0, Some(12))));
        assert_eq!(parse_eval("+1.5"), Some((150.0, None)));
        assert_eq!(parse_eval("#5"), None);
        assert_eq!(parse_eval(&"9".repeat(400)), None);
    }

    #[test]
    fn engine_times_are_written_as_durations() {
        for (ms, text) in [
            (1250, "0:00:01.25"),
            (0, "0:00:00"),
            (3_723_004, "1:02:03.004"),
        ] {
            assert_eq!(duration_text(ms), text);
            assert_eq!(parse_duration(text), Some(ms));
        }
        assert_eq!(parse_duration("0:00:01.2"), Some(1200));
        assert_eq!(parse_duration("1.5"), Some(1500));
        assert_eq!(parse_duration("1:x"), None);
        assert_eq!(parse_duration("0:00:01.2345"), None);
    }

    #[test]
    fn commands_come_out_of_comments_and_the_rest_stays() {
        let (c, rest) = split_commands("[%eval 0.82,12] [%emt 0:00:01.2] good\nline [%csl Ra1]");
        assert_eq!(c.eval, Some((82.0, Some(12))));
        assert_eq!(c.emt, Some(1200));
        assert_eq!(rest.as_deref(), Some("good\nline [%csl Ra1]"));
        let text = adjust_text("position_edit:[x] {y} \"q\" \\", "FEN W");
        assert!(!text[1..text.len() - 1].contains([']', '{', '}']), "{text}");
        let (c, rest) = split_commands(&format!("{text} 注"));
        assert_eq!(
            c.adjust,
            Some(("position_edit:[x] {y} \"q\" \\".into(), "FEN W".into()))
        );
        assert_eq!(rest.as_deref(), Some("注"));
    }
}
