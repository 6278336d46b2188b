//! `jieqi play`: a game against an engine in the terminal. The board is drawn from the
//! player's side with Chinese pieces (red/black colours, face-down pieces 暗 shown
//! distinctly, the last move marked, file numbers of both sides); moves are typed in
//! coordinates (`h2e2`); the engine (any UCI engine of the dialect) answers.

use std::io::{BufRead, IsTerminal, Write};
use std::time::Instant;

use anyhow::Context;
use clap::{Args, ValueEnum};
use jieqi_core::notation::{Notation, Script, read_move, write_move};
use jieqi_core::{ByColor, Color, Piece, Position, Reason, Role, Square, role_chinese};

use crate::runner::game::{engine_turn, start_clocks};
use crate::runner::matches::deal_for;
use crate::runner::outcome::{Ending, color_title};
use crate::runner::{Engine, EngineSpec, GameSettings, Referee, RefereeRules, TimeControl};

/// The engine `jieqi play` uses unless `--engine` says otherwise: our own search
/// engine (`<this executable> uci`).
pub const DEFAULT_ENGINE: &str = "builtin:search";

/// The player's colour.
#[derive(Copy, Clone, Debug, ValueEnum)]
pub enum ColorArg {
    /// Red, moving first.
    Red,
    /// Black.
    Black,
}

/// How pieces are drawn.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Style {
    /// Chosen from the terminal: colour on a terminal without NO_COLOR, plain otherwise.
    Auto,
    /// Chinese pieces in ANSI colours.
    Color,
    /// Chinese pieces without colour: traditional forms tell the sides apart
    /// (Red 帥仕相俥傌炮兵, Black 將士象車馬包卒; face-down Ｘ/ｘ).
    Plain,
    /// FEN letters (upper case Red, X/x face-down).
    Ascii,
}

/// Arguments of `jieqi play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    /// Your colour.
    #[arg(long, value_enum, default_value = "red")]
    color: ColorArg,
    /// Engine strength, sent as the UCI option `Skill Level` (0–20).
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=20))]
    level: Option<u8>,
    /// Clocks for both sides, seconds+increment (yours is checked after each move).
    #[arg(long, conflicts_with = "movetime")]
    tc: Option<String>,
    /// The engine's time per move in milliseconds (without --tc).
    #[arg(long, default_value_t = 1000)]
    movetime: u64,
    /// The engine command (see `jieqi match`).
    #[arg(long, default_value = DEFAULT_ENGINE)]
    engine: String,
    /// Seed for a reproducible deal.
    #[arg(long)]
    seed: Option<String>,
    /// How to draw the board.
    #[arg(long, value_enum, default_value = "auto")]
    style: Style,
    /// Notation to show moves in besides coordinates: chinese, traditional, wxf, iccs.
    #[arg(long, default_value = "chinese")]
    notation: String,
}

const HELP: &str = "Type a move in coordinates, like h2e2 (files a-i from Red's left, \
ranks 0-9 from Red's side), or in Chinese notation (炮二平五, 马８进７) or WXF (C2.5). \
Commands: moves (list legal moves), board, help, resign.";

/// Runs `jieqi play`. A closed output (the reader went away) ends the game quietly.
pub fn run(args: PlayArgs) -> anyhow::Result<()> {
    match play(args) {
        Err(e)
            if e.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            Ok(())
        }
        other => other,
    }
}

fn play(args: PlayArgs) -> anyhow::Result<()> {
    let human = match args.color {
        ColorArg::Red => Color::Red,
        ColorArg::Black => Color::Black,
    };
    let style = match args.style {
        Style::Auto => {
            if std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none() {
                Style::Color
            } else {
                Style::Plain
            }
        }
        s => s,
    };
    let notation = Notation::parse_name(&args.notation).with_context(|| {
        format!(
            "unknown --notation {:?} (chinese, traditional, wxf, iccs)",
            args.notation
        )
    })?;
    let tc = match &args.tc {
        Some(t) => TimeControl::parse_clock(t).map_err(anyhow::Error::msg)?,
        None if args.movetime == 0 => anyhow::bail!("--movetime must be positive"),
        None => TimeControl::MoveTime(args.movetime),
    };
    let mut spec = EngineSpec::parse(&args.engine)
        .with_context(|| format!("bad --engine {:?}", args.engine))?;
    if let Some(level) = args.level {
        spec = spec.with_option("Skill Level", &level.to_string());
    }
    let mut engine = Engine::start(&spec).context("cannot start the engine")?;
    engine.new_game().context("the engine did not get ready")?;
    let settings = GameSettings {
        tc,
        // Generous: an engine losing on time is no fun for a human opponent.
        grace_ms: 2000,
        rules: RefereeRules::default(),
    };
    let deal = match &args.seed {
        Some(s) => deal_for(Some(s), 0),
        None => deal_for(None, 0),
    };
    let mut referee = Referee::new(deal, settings.rules);
    let mut clocks = start_clocks(tc);
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "You play {} against {}. {HELP}",
        color_title(human),
        engine.name
    )?;
    writeln!(out, "{}", render(&referee, human, style))?;
    while referee.outcome().is_none() {
        if referee.turn() != human {
            writeln!(out, "{} is thinking…", engine.name)?;
            out.flush()?;
            if let Err(o) = engine_turn(&mut engine, &mut referee, &settings, &mut clocks) {
                referee.finish(o);
                break;
            }
            writeln!(
                out,
                "{} plays {}",
                engine.name,
                describe_last(&referee, human, notation)
            )?;
            writeln!(out, "{}", render(&referee, human, style))?;
            continue;
        }
        write!(out, "{} to move> ", color_title(human))?;
        out.flush()?;
        let started = Instant::now();
        let mut line = String::new();
        match input.read_line(&mut line) {
            Ok(0) | Err(_) => {
                writeln!(out, "\n(end of input: you leave the game)")?;
                referee.finish(Ending::win(!human, Reason::Abandonment));
                break;
            }
            Ok(_) => {}
        }
        if let TimeControl::Clock { inc_ms, .. } = tc {
            let used = started.elapsed().as_millis() as u64;
            if used > clocks[human] {
                referee.finish(Ending::win(!human, Reason::Time));
                break;
            }
            clocks[human] = clocks[human] - used + inc_ms;
        }
        let text = line.trim();
        match text.to_ascii_lowercase().as_str() {
            "" => continue,
            "help" | "?" => writeln!(out, "{HELP}")?,
            "board" => writeln!(out, "{}", render(&referee, human, style))?,
            "moves" => {
                let pos = referee.view(human);
                let list: Vec<String> = pos
                    .legal_moves()
                    .iter()
                    .map(|&m| match notation {
                        Notation::Iccs => m.to_string(),
                        n => format!("{m}={}", write_move(pos, m, Default::default(), n)),
                    })
                    .collect();
                writeln!(out, "{}", list.join(" "))?;
            }
            "resign" | "quit" | "exit" => {
                referee.finish(Ending::win(!human, Reason::Resignation));
            }
            _ => match read_move(referee.view(human), text) {
                Err(e) => writeln!(out, "not a move here: {e} (type 'help' for help)")?,
                Ok((m, _)) => match referee.play(m) {
                    Err(e) => writeln!(out, "{e}; try again (type 'moves' for the list)")?,
                    Ok(_) => {
                        writeln!(out, "You play {}", describe_last(&referee, human, notation))?;
                        writeln!(out, "{}", render(&referee, human, style))?;
                    }
                },
            },
        }
    }
    let ending = referee
        .ending()
        .cloned()
        .unwrap_or(Ending::draw(Reason::Abandonment));
    writeln!(out, "{}", render(&referee, human, style))?;
    let verdict = match ending.outcome.winner() {
        Some(c) if c == human => "You win",
        Some(_) => "You lose",
        None => "Draw",
    };
    writeln!(out, "Game over: {ending}. {verdict}.")?;
    writeln!(out, "Deal: {}", referee.deal())?;
    engine.quit();
    Ok(())
}

/// The last move as `viewer` knows it: coordinates, and the chosen notation after it.
fn describe_last(referee: &Referee, viewer: Color, notation: Notation) -> String {
    let iccs = referee
        .last_move_text(viewer, Notation::Iccs)
        .unwrap_or_default();
    match notation {
        Notation::Iccs => iccs,
        n => match referee.last_move_text(viewer, n) {
            Some(t) => format!("{iccs} ({t})"),
            None => iccs,
        },
    }
}

/// Red's file numbers (一 at Red's right, file i).
const RED_FILES: [char; 9] = ['九', '八', '七', '六', '五', '四', '三', '二', '一'];

/// The character(s) of one piece in a style: two columns wide.
fn glyph(p: Piece, style: Style) -> String {
    match style {
        Style::Ascii => format!("{} ", p.fen_char()),
        Style::Plain => match p {
            Piece::Down(Color::Red) => "Ｘ".into(),
            Piece::Down(Color::Black) => "ｘ".into(),
            Piece::Up(c, r) => traditional(c, r).to_string(),
        },
        _ => {
            let ch = p.chinese();
            // Pieces as discs on a light ground; face-down ones in reverse.
            let code = match p {
                Piece::Up(Color::Red, _) => "1;31;47",
                Piece::Up(Color::Black, _) => "1;30;47",
                Piece::Down(Color::Red) => "1;37;41",
                Piece::Down(Color::Black) => "1;37;40",
            };
            format!("\x1b[{code}m{ch}\x1b[0m")
        }
    }
}

/// Traditional forms that tell every piece of the two sides apart without colour.
fn traditional(c: Color, r: Role) -> char {
    match (c, r) {
        (Color::Red, Role::King) => '帥',
        (Color::Red, Role::Advisor) => '仕',
        (Color::Red, Role::Elephant) => '相',
        (Color::Red, Role::Horse) => '傌',
        (Color::Red, Role::Rook) => '俥',
        (Color::Red, Role::Cannon) => '炮',
        (Color::Red, Role::Pawn) => '兵',
        (Color::Black, Role::King) => '將',
        (Color::Black, Role::Advisor) => '士',
        (Color::Black, Role::Elephant) => '象',
        (Color::Black, Role::Horse) => '馬',
        (Color::Black, Role::Rook) => '車',
        (Color::Black, Role::Cannon) => '包',
        (Color::Black, Role::Pawn) => '卒',
    }
}

/// Draws the board as `viewer` knows it, from `viewer`'s side, with pools, captures,
/// the last move and whose turn it is.
pub fn render(referee: &Referee, viewer: Color, style: Style) -> String {
    let pos: &Position = referee.view(viewer);
    let last = referee.last_move();
    let files: Vec<u8> = if viewer == Color::Red {
        (0..9).collect()
    } else {
        (0..9).rev().collect()
    };
    let ranks: Vec<u8> = if viewer == Color::Red {
        (0..10).rev().collect()
    } else {
        (0..10).collect()
    };
    let numbers = |side: Color| -> String {
        let mut s = String::from("    ");
        for &f in &files {
            match side {
                Color::Black => s.push_str(&format!(" {} ", f + 1)),
                Color::Red => {
                    s.push(' ');
                    s.push(RED_FILES[f as usize]);
                }
            }
        }
        s
    };
    let mut s = String::new();
    s.push_str(&numbers(!viewer));
    s.push('\n');
    for (row, &rank) in ranks.iter().enumerate() {
        if row == 5 {
            s.push_str("    ~~~~~~~~ 楚 河      汉 界 ~~~~~~~~\n");
        }
        s.push_str(&format!(" {rank}  "));
        for &f in &files {
            let sq = Square::new(rank * 9 + f).unwrap_or(Square::E0);
            let marker = match last {
                Some(m) if m.to == sq => '>',
                Some(m) if m.from == sq => '*',
                _ => ' ',
            };
            s.push(marker);
            match pos.piece_at(sq) {
                Some(p) => s.push_str(&glyph(p, style)),
                None => s.push_str("+ "),
            }
        }
        s.push_str(&format!("  {rank}\n"));
    }
    s.push_str(&numbers(viewer));
    s.push('\n');
    s.push_str("    ");
    for &f in &files {
        s.push_str(&format!(" {} ", char::from(b'a' + f)));
    }
    s.push('\n');
    let role_name = |c: Color, r: Role| match style {
        Style::Ascii => Piece::Up(c, r).fen_char().to_string(),
        Style::Plain => traditional(c, r).to_string(),
        _ => role_chinese(c, r).to_string(),
    };
    for side in [Color::Red, Color::Black] {
        let pool: Vec<String> = Role::HIDDEN
            .iter()
            .filter(|&&r| pos.pool().get(side, r) > 0)
            .map(|&r| format!("{}{}", role_name(side, r), pos.pool().get(side, r)))
            .collect();
        s.push_str(&format!(
            "{} pool (face-down identities not placed): {}\n",
            color_title(side),
            if pool.is_empty() {
                "-".into()
            } else {
                pool.join(" ")
            }
        ));
    }
    let mut taken: ByColor<Vec<String>> = ByColor::new_with(|_| Vec::new());
    for c in referee.captures() {
        let name = if referee.knows_capture(viewer, c) {
            let n = role_name(!c.by, c.identity);
            if matches!(c.piece, Piece::Down(_)) {
                format!("{n}(暗)")
            } else {
                n
            }
        } else {
            "暗?".to_string()
        };
        taken[c.by].push(name);
    }
    for side in [Color::Red, Color::Black] {
        s.push_str(&format!(
            "Captured by {}: {}\n",
            color_title(side),
            if taken[side].is_empty() {
                "-".into()
            } else {
                taken[side].join(" ")
            }
        ));
    }
    if last.is_some() {
        let zh = match style {
            Style::Ascii => Notation::Iccs,
            Style::Plain => Notation::Chinese(Script::Traditional),
            _ => Notation::Chinese(Script::Simplified),
        };
        s.push_str(&format!(
            "Last move: {}\n",
            describe_last(referee, viewer, zh)
        ));
    }
    if referee.outcome().is_none() {
        let check = if referee.truth().is_check() {
            ", in check"
        } else {
            ""
        };
        s.push_str(&format!("{} to move{check}\n", color_title(referee.turn())));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use jieqi_core::{Deal, UciMove};

    #[test]
    fn renders_both_orientations_with_marks() {
        let mut r = Referee::new(Deal::standard(), RefereeRules::default());
        r.play(UciMove::parse("h2h9").unwrap().to_plain()).unwrap();
        let red = render(&r, Color::Red, Style::Plain);
        let lines: Vec<&str> = red.lines().collect();
        assert!(lines[0].contains(" 1  2  3"), "{red}");
        assert!(lines[12].contains("九 八 七 六 五 四 三 二 一"), "{red}");
        // Rank 9 from Red's side: the revealed cannon on h9 is marked as the arrival.
        assert!(lines[1].starts_with(" 9  "), "{red}");
        assert!(lines[1].contains(">炮"), "{red}");
        assert!(red.contains("Captured by Red: 馬(暗)"), "{red}");
        assert!(red.contains("Black to move"));
        let black = render(&r, Color::Black, Style::Plain);
        let lines: Vec<&str> = black.lines().collect();
        assert!(lines[0].contains("一 二 三"), "{black}");
        assert!(lines[1].starts_with(" 0  "), "{black}");
        // Black does not learn what it lost.
        assert!(black.contains("Captured by Red: 暗?"), "{black}");
        assert!(!black.contains("馬(暗)"));
        let ascii = render(&r, Color::Red, Style::Ascii);
        assert!(ascii.contains(">C "), "{ascii}");
        let color = render(&r, Color::Red, Style::Color);
        assert!(color.contains("\x1b[1;37;40m暗\x1b[0m"));
    }
}
