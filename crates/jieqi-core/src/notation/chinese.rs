//! Chinese notation (中文记谱): 「炮二平五」, 「马二进三炮」 (a face-down horse-square piece
//! revealed as a cannon), 「后车九平八炮」, 「假兵七进一现相」 (the 盖棋 form),
//! 「炮八平五翻马」 and 「…吃车」 (JieqiBox's forms).

use super::descriptive::{Descriptive, Direction, Locator, Pick, ResolveError};
use crate::{Color, Move, Position, Reveals, Role};

/// Which characters to write.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum Script {
    /// Simplified (简体): 帅仕相马车炮兵 / 将士象马车炮卒, 进退; Black's numbers `1`–`9`.
    #[default]
    Simplified,
    /// Traditional (繁體): 帥仕相傌俥炮兵 / 將士象馬車包卒, 進退, 後; Black's numbers
    /// full-width `１`–`９`.
    Traditional,
    /// JieqiBox's own style: simplified characters, Black's numbers full-width `１`–`９`,
    /// the revealed identity after 翻 (「炮二平五翻马」), same-kind pieces told apart on
    /// their own file only (「前象进９」, 「前兵/二兵/三兵/后兵」 for four).
    JieqiBox,
}

/// A move in Chinese notation as written, before it is matched to a position.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct ChineseMove {
    /// The side, as the characters suggest (兵/卒, Chinese or Arabic numbers); only
    /// used for writing, resolution takes the side to move.
    pub color: Color,
    /// The kind the mover moves as (a face-down piece: its start square's kind).
    pub role: Role,
    /// Which piece of that kind.
    pub locator: Locator,
    /// 进, 退 or 平.
    pub direction: Direction,
    /// Destination file or number of steps, 1–9.
    pub target: u8,
    /// The identity revealed by a face-down mover (the trailing 「炮」, 「现相」, 「翻马」).
    pub reveal: Option<Role>,
    /// The identity of a captured face-down piece (「吃车」).
    pub captured: Option<Role>,
    /// Written in the 盖棋 form with 假 (and 现 before the revealed identity).
    pub face_down: bool,
}

/// Why a text is not Chinese notation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{text:?} is not a Chinese move: {why}")]
pub struct ParseChineseError {
    /// The text.
    pub text: String,
    /// What is wrong, in words.
    pub why: String,
}

/// The kind named by a piece character, simplified or traditional, either colour.
pub(crate) fn role_of_char(c: char) -> Option<Role> {
    Some(match c {
        '帅' | '帥' | '将' | '將' => Role::King,
        '仕' | '士' => Role::Advisor,
        '相' | '象' => Role::Elephant,
        '马' | '馬' | '傌' => Role::Horse,
        '车' | '車' | '俥' => Role::Rook,
        '炮' | '砲' | '包' => Role::Cannon,
        '兵' | '卒' => Role::Pawn,
        _ => return None,
    })
}

/// The colour a piece character implies, if it implies one.
fn color_of_char(c: char) -> Option<Color> {
    match c {
        '帅' | '帥' | '仕' | '相' | '兵' | '傌' | '俥' => Some(Color::Red),
        '将' | '將' | '士' | '象' | '卒' | '包' | '砲' => Some(Color::Black),
        _ => None,
    }
}

/// The character of a piece in a script.
pub fn piece_char(color: Color, role: Role, script: Script) -> char {
    match script {
        Script::Simplified | Script::JieqiBox => crate::role_chinese(color, role),
        Script::Traditional => match (color, role) {
            (Color::Red, Role::King) => '帥',
            (Color::Black, Role::King) => '將',
            (Color::Red, Role::Advisor) => '仕',
            (Color::Black, Role::Advisor) => '士',
            (Color::Red, Role::Elephant) => '相',
            (Color::Black, Role::Elephant) => '象',
            (Color::Red, Role::Horse) => '傌',
            (Color::Black, Role::Horse) => '馬',
            (Color::Red, Role::Rook) => '俥',
            (Color::Black, Role::Rook) => '車',
            (Color::Red, Role::Cannon) => '炮',
            (Color::Black, Role::Cannon) => '包',
            (Color::Red, Role::Pawn) => '兵',
            (Color::Black, Role::Pawn) => '卒',
        },
    }
}

/// A numeral 1–9 in any of the accepted styles, and whether it was Chinese.
fn numeral(c: char) -> Option<(u8, bool)> {
    const CN: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];
    if let Some(i) = CN.iter().position(|&x| x == c) {
        return Some((i as u8 + 1, true));
    }
    match c {
        '1'..='9' => Some((c as u8 - b'0', false)),
        '１'..='９' => Some(((c as u32 - '０' as u32) as u8, false)),
        _ => None,
    }
}

const CN_NUMERALS: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];

fn write_numeral(n: u8, color: Color, script: Script) -> char {
    let i = usize::from(n.clamp(1, 9) - 1);
    match (color, script) {
        (Color::Red, _) => CN_NUMERALS[i],
        (Color::Black, Script::Simplified) => (b'1' + i as u8) as char,
        (Color::Black, Script::Traditional | Script::JieqiBox) => {
            char::from_u32('１' as u32 + i as u32).unwrap_or('?')
        }
    }
}

/// Drops spaces and what commonly trails a move: check marks, move-quality marks and
/// a bracketed remark such as 「（叫将）」.
fn normalize(text: &str) -> Vec<char> {
    let mut chars: Vec<char> = text
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '\u{3000}')
        .collect();
    loop {
        match chars.last() {
            Some('+' | '#' | '!' | '?' | '！' | '？') => {
                chars.pop();
            }
            Some(')' | '）') => {
                let open = chars.iter().rposition(|&c| c == '(' || c == '（');
                match open {
                    Some(i) if i > 0 => chars.truncate(i),
                    _ => break,
                }
            }
            _ => break,
        }
    }
    chars
}

impl ChineseMove {
    /// Reads a move in any accepted form: simplified or traditional characters,
    /// Chinese, ASCII or full-width numbers for either side, position words before the
    /// piece (前/中/后, 一…九 from the front) with or without the file, the revealed
    /// identity as a trailing character, after 现 or after 翻, 假 in front, and 吃X.
    pub fn parse(text: &str) -> Result<ChineseMove, ParseChineseError> {
        let c = normalize(text);
        let err = |why: String| ParseChineseError {
            text: text.to_string(),
            why,
        };
        let at = |i: usize| c.get(i).copied();
        let mut i = 0;
        let mut face_down = false;
        if at(0) == Some('假') {
            face_down = true;
            i = 1;
        }
        let mut chinese_numbers = None;
        let color_hint;
        let first = at(i).ok_or_else(|| err("it is empty".into()))?;
        let pick_of = |ch: char| -> Option<Pick> {
            match ch {
                '前' => Some(Pick::Front),
                '中' => Some(Pick::Middle),
                '后' | '後' => Some(Pick::Back),
                _ => numeral(ch).map(|(n, _)| Pick::Nth(n)),
            }
        };
        let (role, locator);
        if let Some(r) = role_of_char(first) {
            role = r;
            color_hint = color_of_char(first);
            i += 1;
            let next = at(i).ok_or_else(|| err("it ends after the piece".into()))?;
            if let Some((n, cn)) = numeral(next) {
                chinese_numbers = Some(cn);
                locator = Locator::File(n);
                i += 1;
            } else if let Some(p @ (Pick::Front | Pick::Middle | Pick::Back)) = pick_of(next) {
                // 「车前平四」: the place after the piece.
                locator = Locator::Pick {
                    pick: p,
                    file: None,
                };
                i += 1;
            } else {
                return Err(err(format!(
                    "after the piece, expected its file (一…九 or 1…9), found {next:?}"
                )));
            }
        } else if let Some(pick) = pick_of(first) {
            i += 1;
            let pc = at(i).ok_or_else(|| err("it ends after the position word".into()))?;
            role = role_of_char(pc).ok_or_else(|| {
                err(format!(
                    "after the position word {first:?}, expected a piece, found {pc:?}"
                ))
            })?;
            color_hint = color_of_char(pc);
            i += 1;
            let file = match at(i).and_then(numeral) {
                Some((n, cn)) => {
                    chinese_numbers = Some(cn);
                    i += 1;
                    Some(n)
                }
                None => None,
            };
            locator = Locator::Pick { pick, file };
        } else {
            return Err(err(format!(
                "expected a piece (车马相仕帅炮兵…) or a position word (前中后, 一二三…), found {first:?}"
            )));
        }
        let dc = at(i).ok_or_else(|| err("the direction (进/退/平) is missing".into()))?;
        let direction = match dc {
            '进' | '進' => Direction::Forward,
            '退' => Direction::Backward,
            '平' => Direction::Sideways,
            _ => return Err(err(format!("expected 进, 退 or 平, found {dc:?}"))),
        };
        i += 1;
        let tc = at(i).ok_or_else(|| err("the target number is missing".into()))?;
        let (target, cn) =
            numeral(tc).ok_or_else(|| err(format!("expected a number 1–9, found {tc:?}")))?;
        chinese_numbers.get_or_insert(cn);
        i += 1;
        let mut reveal = None;
        let mut captured = None;
        if let Some(ch) = at(i)
            && matches!(ch, '现' | '現' | '翻')
        {
            i += 1;
            let rc = at(i).ok_or_else(|| err(format!("a piece must follow {ch:?}")))?;
            reveal = Some(
                role_of_char(rc)
                    .ok_or_else(|| err(format!("{rc:?} after {ch:?} is not a piece")))?,
            );
            i += 1;
        } else if let Some(r) = at(i).and_then(role_of_char) {
            reveal = Some(r);
            i += 1;
        }
        if at(i) == Some('吃') {
            i += 1;
            let rc = at(i).ok_or_else(|| err("a piece must follow 吃".into()))?;
            captured = Some(
                role_of_char(rc).ok_or_else(|| err(format!("{rc:?} after 吃 is not a piece")))?,
            );
            i += 1;
        }
        if let Some(rest) = c.get(i..).filter(|r| !r.is_empty()) {
            return Err(err(format!(
                "unexpected {:?} at the end",
                rest.iter().collect::<String>()
            )));
        }
        if reveal == Some(Role::King) || captured == Some(Role::King) {
            return Err(err("a king is never face-down".into()));
        }
        let color = color_hint.unwrap_or(match chinese_numbers {
            Some(false) => Color::Black,
            _ => Color::Red,
        });
        Ok(ChineseMove {
            color,
            role,
            locator,
            direction,
            target,
            reveal,
            captured,
            face_down,
        })
    }

    fn core(&self) -> Descriptive {
        Descriptive {
            role: self.role,
            locator: self.locator,
            direction: self.direction,
            target: self.target,
            reveal: self.reveal,
            captured: self.captured,
            face_down: self.face_down,
        }
    }

    /// Matches the move to `pos`: the piece meant, the legal move, and the reveals
    /// written. A face-down mover without a written identity gets `Reveals::mover ==
    /// None`; everything written must fit the position.
    pub fn resolve(&self, pos: &Position) -> Result<(Move, Reveals), ResolveError> {
        self.core().resolve(pos)
    }

    /// The standard description of a legal move `m` of `pos`: the file alone when the
    /// piece is alone of its kind on its file; otherwise 前/后 (two), 前/中/后 (three) or
    /// 一二三… (four or more) before the piece, keeping the file when several files hold
    /// two or more of the kind. The revealed identity follows when `rv.mover` is given
    /// for a face-down mover, and 「吃X」 when `rv.captured` is given.
    pub fn from_move(pos: &Position, m: Move, rv: Reveals) -> ChineseMove {
        let (d, pl) = Descriptive::from_move(pos, m, rv);
        let locator = if pl.count <= 1 {
            Locator::File(pl.file)
        } else {
            let pick = match (pl.count, pl.index) {
                (2, 0) | (3, 0) => Pick::Front,
                (2, _) => Pick::Back,
                (3, 1) => Pick::Middle,
                (3, _) => Pick::Back,
                (_, k) => Pick::Nth(k as u8 + 1),
            };
            Locator::Pick {
                pick,
                file: (pl.tandem_files >= 2).then_some(pl.file),
            }
        };
        ChineseMove {
            color: pos.turn(),
            role: d.role,
            locator,
            direction: d.direction,
            target: d.target,
            reveal: d.reveal,
            captured: d.captured,
            face_down: false,
        }
    }

    /// The description of a legal move `m` of `pos` for writing in `script`: as
    /// [`ChineseMove::from_move`], except that JieqiBox's style names the place on the
    /// mover's own file without the file (前/后, 前/中/后, 前/二/三/…/后).
    pub fn from_move_in(pos: &Position, m: Move, rv: Reveals, script: Script) -> ChineseMove {
        let mut cm = ChineseMove::from_move(pos, m, rv);
        if script == Script::JieqiBox {
            let pl = super::descriptive::placement(pos, m.from);
            if pl.count >= 2 {
                let pick = match (pl.count, pl.index) {
                    (_, 0) => Pick::Front,
                    (c, i) if i + 1 == c => Pick::Back,
                    (3, _) => Pick::Middle,
                    (_, i) => Pick::Nth(i as u8 + 1),
                };
                cm.locator = Locator::Pick { pick, file: None };
            }
        }
        cm
    }

    /// The text in `script`.
    pub fn to_text(&self, script: Script) -> String {
        let color = self.color;
        let mut s = String::new();
        if self.face_down {
            s.push('假');
        }
        let piece = piece_char(color, self.role, script);
        let back = if script == Script::Traditional {
            '後'
        } else {
            '后'
        };
        match self.locator {
            Locator::File(f) | Locator::FileOrMiddle(f) => {
                s.push(piece);
                s.push(write_numeral(f, color, script));
            }
            Locator::Pick { pick, file } => {
                s.push(match pick {
                    Pick::Front | Pick::WxfPlus => '前',
                    Pick::Middle => '中',
                    Pick::Back | Pick::WxfMinus => back,
                    Pick::Nth(n) => CN_NUMERALS[usize::from(n.clamp(1, 9) - 1)],
                });
                s.push(piece);
                if let Some(f) = file {
                    s.push(write_numeral(f, color, script));
                }
            }
        }
        s.push(match (self.direction, script) {
            (Direction::Forward, Script::Simplified | Script::JieqiBox) => '进',
            (Direction::Forward, Script::Traditional) => '進',
            (Direction::Backward, _) => '退',
            (Direction::Sideways, _) => '平',
        });
        s.push(write_numeral(self.target, color, script));
        if let Some(r) = self.reveal {
            if script == Script::JieqiBox {
                s.push('翻');
            } else if self.face_down {
                s.push(if script == Script::Traditional {
                    '現'
                } else {
                    '现'
                });
            }
            s.push(piece_char(color, r, script));
        }
        if let Some(r) = self.captured {
            s.push('吃');
            s.push(piece_char(!color, r, script));
        }
        s
    }
}

impl std::fmt::Display for ChineseMove {
    /// The simplified text.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_text(Script::Simplified))
    }
}

impl std::str::FromStr for ChineseMove {
    type Err = ParseChineseError;
    fn from_str(s: &str) -> Result<ChineseMove, ParseChineseError> {
        ChineseMove::parse(s)
    }
}
