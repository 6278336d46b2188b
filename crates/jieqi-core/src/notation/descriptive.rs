//! What Chinese and WXF notation have in common: a piece kind, which piece of that kind,
//! a direction and a target; and resolving that against a position.

use crate::{Color, Move, Position, Reveals, Role, Square};

/// The direction word: 进 (forward, `+`), 退 (backward, `-`), 平 (sideways, `.`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// 进: towards the opponent.
    Forward,
    /// 退: towards the mover's own back rank.
    Backward,
    /// 平: along the rank.
    Sideways,
}

/// Which of the pieces on one file is meant, counted from the mover's front.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Pick {
    /// 前: the foremost.
    Front,
    /// 中: the middle one of an odd number.
    Middle,
    /// 后: the rearmost.
    Back,
    /// 一/二/三…: the n-th from the front, 1-based.
    Nth(u8),
    /// WXF `P+`: the front one, or the second from the front when the file holds four or more.
    WxfPlus,
    /// WXF `P-`: the rear one, or the second from the rear when the file holds four or more.
    WxfMinus,
}

/// Which piece of the named kind moves.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Locator {
    /// The piece on this file (1–9 from the mover's right), 「炮二」/`C2`.
    File(u8),
    /// WXF `C2` on a file with three or five such pieces: the middle one; otherwise
    /// as [`Locator::File`].
    FileOrMiddle(u8),
    /// A place on a file (「前车」, 「二兵五」, `R+`, `3-`), the file given or, when
    /// omitted, whichever file holds two or more such pieces.
    Pick {
        /// Which one from the front.
        pick: Pick,
        /// The file, if written.
        file: Option<u8>,
    },
}

/// The meaning-free content of a descriptive move, shared by Chinese and WXF.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Descriptive {
    /// The kind the mover moves as (face-down: its start square's kind).
    pub role: Role,
    /// Which piece of that kind.
    pub locator: Locator,
    /// The direction.
    pub direction: Direction,
    /// Destination file (sideways, or diagonal movers) or number of steps (1–9).
    pub target: u8,
    /// The identity the face-down mover turned out to be.
    pub reveal: Option<Role>,
    /// The identity of a captured face-down piece.
    pub captured: Option<Role>,
    /// Written as face-down (假…): the mover must be face-down.
    pub face_down: bool,
}

/// Why a descriptive move does not fit a position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    /// The side to move has no piece moving as this kind.
    #[error("{color} has no piece moving as a {role}")]
    NoSuchPiece {
        /// The side to move.
        color: Color,
        /// The kind.
        role: Role,
    },
    /// No piece of the side to move on a square (coordinate notation).
    #[error("no {color} piece on {square}")]
    NoPieceOn {
        /// The side to move.
        color: Color,
        /// The square.
        square: Square,
    },
    /// No piece of the kind on the file named.
    #[error("{color} has no piece moving as a {role} on file {file} (its {square_file} file)")]
    NoneOnFile {
        /// The side to move.
        color: Color,
        /// The kind.
        role: Role,
        /// The file as numbered by the mover (1–9 from its right).
        file: u8,
        /// The same file as a letter a–i.
        square_file: char,
    },
    /// A place on a file that the file does not have (e.g. 中 with two pieces).
    #[error("no {pick} {role} on {where_}: {count} such pieces there")]
    NoSuchPlace {
        /// The place asked for.
        pick: String,
        /// The kind.
        role: Role,
        /// Which file(s).
        where_: String,
        /// How many such pieces stand there.
        count: usize,
    },
    /// A direction or target the piece kind cannot have (a horse moving 平, a rook
    /// moving 0 steps, an elephant going to a file one away).
    #[error("a {role} cannot move {direction:?} {target}: {why}")]
    BadTarget {
        /// The kind.
        role: Role,
        /// The direction.
        direction: Direction,
        /// The target number.
        target: u8,
        /// Why not.
        why: &'static str,
    },
    /// The pieces meant exist but none of them can make the move.
    #[error("{}", none_can_text(.role, .candidates))]
    NoneCan {
        /// The kind.
        role: Role,
        /// Each piece meant, with the move it would make if the piece could (None if the
        /// destination is off the board).
        candidates: Vec<(Square, Option<Move>)>,
    },
    /// Several pieces could make the move.
    #[error("ambiguous: {} could be meant; name the file or the place (前/后, 一二三…, +/-)",
        .candidates.iter().map(|m| format!("the {} on {} ({})", .role, m.from, m)).collect::<Vec<_>>().join(" or "))]
    Ambiguous {
        /// The kind.
        role: Role,
        /// The moves that fit.
        candidates: Vec<Move>,
    },
    /// 假 was written but the mover is face-up.
    #[error("the piece on {square} is face-up, but the move says it is face-down (假)")]
    NotFaceDown {
        /// The mover's square.
        square: Square,
    },
    /// A revealed identity was written for a face-up mover.
    #[error("the piece on {square} is face-up: it reveals nothing, but the move says {role}")]
    UnexpectedReveal {
        /// The mover's square.
        square: Square,
        /// The identity written.
        role: Role,
    },
    /// A captured identity was written, but the captured piece is not face-down.
    #[error("a captured identity ({role}) was written, but {square} holds no face-down piece")]
    CapturedNotHidden {
        /// The destination.
        square: Square,
        /// The identity written.
        role: Role,
    },
    /// A revealed or captured identity that cannot be there (the king, or one the
    /// pool does not hold).
    #[error("{color} has no {role} left among its face-down pieces")]
    NotInPool {
        /// Whose pool.
        color: Color,
        /// The identity.
        role: Role,
    },
}

fn none_can_text(role: &Role, candidates: &[(Square, Option<Move>)]) -> String {
    let parts: Vec<String> = candidates
        .iter()
        .map(|(sq, m)| match m {
            Some(m) => format!("the {role} on {sq} cannot play {m}"),
            None => format!("the {role} on {sq} would leave the board"),
        })
        .collect();
    format!("no legal move fits: {}", parts.join("; "))
}

/// Whether the kind moves along lines (so 进/退 count steps) rather than diagonally
/// (so 进/退 name the destination file).
pub(crate) const fn moves_straight(role: Role) -> bool {
    matches!(role, Role::King | Role::Rook | Role::Cannon | Role::Pawn)
}

/// The file number (1–9 from `color`'s right) of a file index (0 = `a`).
pub(crate) const fn file_number(color: Color, file_index: u8) -> u8 {
    match color {
        Color::Red => 9 - file_index,
        Color::Black => file_index + 1,
    }
}

/// The file index (0 = `a`) of a file number as `color` counts.
pub(crate) const fn file_index(color: Color, number: u8) -> u8 {
    match color {
        Color::Red => 9 - number,
        Color::Black => number - 1,
    }
}

/// +1 if `color` moves up the ranks, -1 if down.
pub(crate) const fn forward(color: Color) -> i32 {
    match color {
        Color::Red => 1,
        Color::Black => -1,
    }
}

/// Where a piece stands among the pieces of its kind, for naming it.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Placement {
    /// The kind it moves as.
    pub role: Role,
    /// Its file number (1–9 from the mover's right).
    pub file: u8,
    /// How many pieces of that kind stand on its file.
    pub count: usize,
    /// Its index on the file counted from the front (0 = foremost).
    pub index: usize,
    /// How many files hold two or more pieces of the kind.
    pub tandem_files: usize,
}

/// The squares of `color`'s pieces that move as `role`, by file index, each file's
/// list sorted from `color`'s front to its back.
fn kind_by_file(pos: &Position, color: Color, role: Role) -> [Vec<Square>; 9] {
    let mut files: [Vec<Square>; 9] = Default::default();
    for (sq, p) in pos.board().pieces() {
        if p.color() == color && pos.movement_role(sq) == Some(role) {
            files[usize::from(sq.file().index())].push(sq);
        }
    }
    for f in &mut files {
        f.sort_by_key(|s| -forward(color) * i32::from(s.rank().index()));
    }
    files
}

/// Where the piece on `from` stands among its kind.
pub(crate) fn placement(pos: &Position, from: Square) -> Placement {
    let color = pos.turn();
    let role = pos.movement_role(from).unwrap_or(Role::Pawn);
    let files = kind_by_file(pos, color, role);
    let on_file = &files[usize::from(from.file().index())];
    Placement {
        role,
        file: file_number(color, from.file().index()),
        count: on_file.len(),
        index: on_file.iter().position(|&s| s == from).unwrap_or(0),
        tandem_files: files.iter().filter(|f| f.len() >= 2).count(),
    }
}

/// The direction and target that describe `m` for the piece kind `role`.
pub(crate) fn direction_target(color: Color, role: Role, m: Move) -> (Direction, u8) {
    let dr = forward(color) * (i32::from(m.to.rank().index()) - i32::from(m.from.rank().index()));
    let to_file = file_number(color, m.to.file().index());
    if dr == 0 {
        (Direction::Sideways, to_file)
    } else {
        let dir = if dr > 0 {
            Direction::Forward
        } else {
            Direction::Backward
        };
        let target = if moves_straight(role) {
            dr.unsigned_abs() as u8
        } else {
            to_file
        };
        (dir, target)
    }
}

fn pick_index(pick: Pick, count: usize) -> Option<usize> {
    match pick {
        Pick::Front => (count >= 1).then_some(0),
        Pick::Back => count.checked_sub(1),
        Pick::Middle => (count % 2 == 1).then_some(count / 2),
        Pick::Nth(n) => {
            let i = usize::from(n).checked_sub(1)?;
            (i < count).then_some(i)
        }
        Pick::WxfPlus => match count {
            0 => None,
            1..=3 => Some(0),
            _ => Some(1),
        },
        Pick::WxfMinus => match count {
            0 => None,
            1..=3 => Some(count - 1),
            _ => Some(count - 2),
        },
    }
}

fn pick_name(pick: Pick) -> String {
    match pick {
        Pick::Front => "front (前)".into(),
        Pick::Middle => "middle (中)".into(),
        Pick::Back => "rear (后)".into(),
        Pick::Nth(n) => format!("number {n} from the front"),
        Pick::WxfPlus => "WXF '+'".into(),
        Pick::WxfMinus => "WXF '-'".into(),
    }
}

/// The destination of a piece of kind `role` on `from` for a direction and target.
fn destination(
    color: Color,
    role: Role,
    from: Square,
    direction: Direction,
    target: u8,
) -> Result<Option<Square>, ResolveError> {
    let bad = |why| ResolveError::BadTarget {
        role,
        direction,
        target,
        why,
    };
    if !(1..=9).contains(&target) {
        return Err(bad("targets are 1 to 9"));
    }
    let (f, r) = (
        i32::from(from.file().index()),
        i32::from(from.rank().index()),
    );
    let fwd = forward(color);
    if direction == Direction::Sideways {
        if !moves_straight(role) {
            return Err(bad("this kind moves diagonally and never along a rank"));
        }
        let tf = i32::from(file_index(color, target));
        return Ok(Square::from_xy(tf, r));
    }
    let sign = if direction == Direction::Forward {
        fwd
    } else {
        -fwd
    };
    if moves_straight(role) {
        return Ok(Square::from_xy(f, r + sign * i32::from(target)));
    }
    let tf = i32::from(file_index(color, target));
    let df = (tf - f).abs();
    let dr = match (role, df) {
        (Role::Advisor, 1) => 1,
        (Role::Elephant, 2) => 2,
        (Role::Horse, 1) => 2,
        (Role::Horse, 2) => 1,
        (Role::Advisor, _) => return Err(bad("an advisor goes to a file next to its own")),
        (Role::Elephant, _) => return Err(bad("an elephant goes to a file two away")),
        _ => return Err(bad("a horse goes to a file one or two away")),
    };
    Ok(Square::from_xy(tf, r + sign * dr))
}

impl Descriptive {
    /// Resolves the move in `pos`: which piece, which legal move, and the reveals it
    /// carries. The mover's identity may be missing (for a referee or a deal to fill);
    /// anything written must fit.
    pub(crate) fn resolve(&self, pos: &Position) -> Result<(Move, Reveals), ResolveError> {
        let color = pos.turn();
        let role = self.role;
        let files = kind_by_file(pos, color, role);
        if files.iter().all(Vec::is_empty) {
            return Err(ResolveError::NoSuchPiece { color, role });
        }
        let on_file = |n: u8| -> Result<&Vec<Square>, ResolveError> {
            if !(1..=9).contains(&n) {
                return Err(ResolveError::BadTarget {
                    role,
                    direction: self.direction,
                    target: n,
                    why: "files are numbered 1 to 9",
                });
            }
            let fi = file_index(color, n);
            let v = &files[usize::from(fi)];
            if v.is_empty() {
                return Err(ResolveError::NoneOnFile {
                    color,
                    role,
                    file: n,
                    square_file: (b'a' + fi) as char,
                });
            }
            Ok(v)
        };
        let candidates: Vec<Square> = match self.locator {
            Locator::File(n) => on_file(n)?.clone(),
            Locator::FileOrMiddle(n) => {
                let v = on_file(n)?;
                if v.len() == 3 || v.len() == 5 {
                    vec![v[v.len() / 2]]
                } else {
                    v.clone()
                }
            }
            Locator::Pick {
                pick,
                file: Some(n),
            } => {
                let v = on_file(n)?;
                let i = pick_index(pick, v.len()).ok_or_else(|| ResolveError::NoSuchPlace {
                    pick: pick_name(pick),
                    role,
                    where_: format!("file {n}"),
                    count: v.len(),
                })?;
                vec![v[i]]
            }
            Locator::Pick { pick, file: None } => {
                let tandem: Vec<&Vec<Square>> = files.iter().filter(|v| v.len() >= 2).collect();
                let picked: Vec<Square> = tandem
                    .iter()
                    .filter_map(|v| pick_index(pick, v.len()).map(|i| v[i]))
                    .collect();
                if picked.is_empty() {
                    return Err(ResolveError::NoSuchPlace {
                        pick: pick_name(pick),
                        role,
                        where_: "any file holding two or more".into(),
                        count: tandem.iter().map(|v| v.len()).max().unwrap_or(1),
                    });
                }
                picked
            }
        };
        // 假 (face-down) tells a face-down piece from face-up ones of the same kind.
        let candidates = if self.face_down {
            let down: Vec<Square> = candidates
                .iter()
                .copied()
                .filter(|&s| pos.board().is_hidden(s))
                .collect();
            if down.is_empty() {
                return Err(ResolveError::NotFaceDown {
                    square: candidates[0],
                });
            }
            down
        } else {
            candidates
        };
        let legal = pos.legal_moves();
        let mut fits = Vec::new();
        let mut tried = Vec::new();
        let mut bad_target = None;
        for &from in &candidates {
            // With several pieces meant (「前象进９」 when two files hold two elephants, as
            // JieqiBox writes it), one whose file the target does not fit is just not it.
            let to = match destination(color, role, from, self.direction, self.target) {
                Ok(to) => to,
                Err(e) if candidates.len() > 1 => {
                    bad_target.get_or_insert(e);
                    None
                }
                Err(e) => return Err(e),
            };
            let m = to.map(|to| Move::new(from, to));
            match m {
                Some(m) if legal.contains(m) => fits.push(m),
                _ => tried.push((from, m)),
            }
        }
        let m = match fits.len() {
            0 => {
                if let Some(e) = bad_target.filter(|_| tried.iter().all(|(_, m)| m.is_none())) {
                    return Err(e);
                }
                return Err(ResolveError::NoneCan {
                    role,
                    candidates: tried,
                });
            }
            1 => fits[0],
            _ => {
                return Err(ResolveError::Ambiguous {
                    role,
                    candidates: fits,
                });
            }
        };
        self.reveals_for(pos, m)
    }

    fn reveals_for(&self, pos: &Position, m: Move) -> Result<(Move, Reveals), ResolveError> {
        let color = pos.turn();
        let hidden = pos.board().is_hidden(m.from);
        if self.face_down && !hidden {
            return Err(ResolveError::NotFaceDown { square: m.from });
        }
        if let Some(role) = self.reveal {
            if !hidden {
                return Err(ResolveError::UnexpectedReveal {
                    square: m.from,
                    role,
                });
            }
            if role == Role::King || pos.pool().get(color, role) == 0 {
                return Err(ResolveError::NotInPool { color, role });
            }
        }
        if let Some(role) = self.captured {
            if !pos.board().is_hidden(m.to) {
                return Err(ResolveError::CapturedNotHidden { square: m.to, role });
            }
            if role == Role::King || pos.pool().get(!color, role) == 0 {
                return Err(ResolveError::NotInPool {
                    color: !color,
                    role,
                });
            }
        }
        Ok((
            m,
            Reveals {
                mover: self.reveal,
                captured: self.captured,
            },
        ))
    }

    /// The description of a legal move `m` of `pos`, with the reveals to show.
    pub(crate) fn from_move(pos: &Position, m: Move, rv: Reveals) -> (Descriptive, Placement) {
        let color = pos.turn();
        let pl = placement(pos, m.from);
        let (direction, target) = direction_target(color, pl.role, m);
        let hidden = pos.board().is_hidden(m.from);
        let d = Descriptive {
            role: pl.role,
            locator: Locator::File(pl.file),
            direction,
            target,
            reveal: if hidden { rv.mover } else { None },
            captured: if pos.board().is_hidden(m.to) {
                rv.captured
            } else {
                None
            },
            face_down: false,
        };
        (d, pl)
    }
}
