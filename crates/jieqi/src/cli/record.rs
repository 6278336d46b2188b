//! `jieqi record convert|show|verify`: game records (PGN, JieqiBox JSON, web JSON).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::{Args, Subcommand};
use jieqi_core::notation::Notation;
use jieqi_core::record::{self, Format, Record, pgn, web};
use jieqi_core::{Color, Piece, Position, Role, Square, role_chinese};

/// Arguments of `jieqi record`.
#[derive(Args)]
pub struct RecordArgs {
    #[command(subcommand)]
    command: RecordCommand,
}

#[derive(Subcommand)]
enum RecordCommand {
    /// Convert a record (PGN, JieqiBox JSON or web JSON, detected) to another format.
    Convert {
        /// The record to read.
        input: PathBuf,
        /// Where to write (`-` for standard output).
        output: PathBuf,
        /// Output format: pgn, json (the compact web form) or jieqibox; default from
        /// OUTPUT's extension (.json: json), else pgn.
        #[arg(long)]
        to: Option<String>,
        /// Notation of PGN moves: chinese, chinese-traditional, jieqibox (Chinese in JieqiBox's style), wxf or iccs.
        #[arg(long, default_value = "chinese")]
        notation: String,
        /// For --to json: whose copy (referee, red, black, spectator); it holds only
        /// what that viewer may know.
        #[arg(long, default_value = "referee")]
        viewer: String,
    },
    /// Show the board after a ply, the move list in Chinese notation and the pools.
    Show {
        /// The record.
        file: PathBuf,
        /// Show the position after this many plies (default: the end).
        #[arg(long)]
        ply: Option<usize>,
        /// Notation of the move list: chinese, chinese-traditional, jieqibox, wxf or iccs.
        #[arg(long, default_value = "chinese")]
        notation: String,
    },
    /// Check legality, reveals against the deal, the deal against its commitment, and
    /// the result of every game in the file; exit code 1 if any fails.
    Verify {
        /// The record (a PGN file may hold several games).
        file: PathBuf,
    },
}

fn read_text(path: &Path) -> anyhow::Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))
}

/// The record in a file (of a multi-game PGN, the first game).
fn load(path: &Path) -> anyhow::Result<Record> {
    record::read_any(&read_text(path)?).with_context(|| format!("{}", path.display()))
}

/// Every record in a file: each game of a PGN, or the one record of a JSON file.
fn load_all(path: &Path) -> anyhow::Result<Vec<Record>> {
    let text = read_text(path)?;
    let text = text.trim_start_matches('\u{feff}');
    let records = match record::detect_format(text) {
        Format::Pgn(_) => pgn::read_all(text),
        _ => record::read_any(text).map(|r| vec![r]),
    };
    let records = records.with_context(|| format!("{}", path.display()))?;
    if records.is_empty() {
        bail!("{}: no game in the file", path.display());
    }
    Ok(records)
}

fn notation(s: &str) -> anyhow::Result<Notation> {
    Notation::parse_name(s).with_context(|| {
        format!("unknown notation {s:?}: use chinese, chinese-traditional, jieqibox, wxf or iccs")
    })
}

/// Runs `jieqi record`.
pub fn run(args: RecordArgs) -> anyhow::Result<()> {
    match args.command {
        RecordCommand::Convert {
            input,
            output,
            to,
            notation: n,
            viewer,
        } => {
            let rec = load(&input)?;
            let to = to.unwrap_or_else(|| {
                if output
                    .extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("json"))
                {
                    "json".into()
                } else {
                    "pgn".into()
                }
            });
            let format = match to.to_ascii_lowercase().as_str() {
                "pgn" => Format::Pgn(notation(&n)?),
                "jieqibox" => Format::JieqiBox,
                "json" | "web" => Format::Web(web::parse_viewer(&viewer).with_context(|| {
                    format!("unknown viewer {viewer:?}: use referee, red, black or spectator")
                })?),
                other => bail!("unknown format {other:?}: use pgn, json or jieqibox"),
            };
            let text = record::write(&rec, format);
            if output.as_os_str() == "-" {
                print!("{text}");
                if !text.ends_with('\n') {
                    println!();
                }
            } else {
                std::fs::write(&output, text)
                    .with_context(|| format!("cannot write {}", output.display()))?;
            }
            Ok(())
        }
        RecordCommand::Show {
            file,
            ply,
            notation: n,
        } => {
            let rec = load(&file)?;
            print!("{}", show(&rec, ply, notation(&n)?)?);
            Ok(())
        }
        RecordCommand::Verify { file } => {
            let records = load_all(&file)?;
            let mut rejected = Vec::new();
            for (i, rec) in records.iter().enumerate() {
                let name = if records.len() > 1 {
                    format!("{} game {}", file.display(), i + 1)
                } else {
                    file.display().to_string()
                };
                match verify_report(rec) {
                    Ok(text) => print!("{name}: {text}"),
                    Err(e) => rejected.push(format!("{name}: rejected at {e}")),
                }
            }
            if !rejected.is_empty() {
                bail!("{}", rejected.join("\n"));
            }
            Ok(())
        }
    }
}

/// What `verify` prints for a record that passes (after `NAME: `), or why it fails.
fn verify_report(rec: &Record) -> Result<String, record::VerifyError> {
    let r = rec.verify()?;
    let deal = match (r.deal_checked, r.commitment_checked) {
        (true, true) => "every reveal agrees with it; it matches its commitment",
        (true, false) => "every reveal agrees with it (no commitment given)",
        (false, _) => "none given; every reveal is stated in the moves",
    };
    let end = match r.outcome {
        Some(o) => format!("end: {o} ({})", o.result_str()),
        None => format!("result: {}", rec.result),
    };
    Ok(format!("ok, {} plies\n  deal: {deal}\n  {end}\n", r.plies))
}

const RED_FILES: [&str; 9] = ["九", "八", "七", "六", "五", "四", "三", "二", "一"];

/// One board point, 5 columns wide: `(车)` Red, `[车]` Black, `(暗)` face-down, `*`
/// before the piece that moved last, `+` where it came from.
fn cell(p: Option<Piece>, last_to: bool, last_from: bool) -> String {
    match p {
        None if last_from => "  +  ".into(),
        None => "  ·  ".into(),
        Some(p) => {
            let (open, close) = if p.color() == Color::Red {
                ('(', ')')
            } else {
                ('[', ']')
            };
            let mark = if last_to { '*' } else { ' ' };
            format!("{mark}{open}{}{close}", p.chinese())
        }
    }
}

fn pool_text(m: &jieqi_core::Material, c: Color) -> String {
    let parts: Vec<String> = Role::HIDDEN
        .iter()
        .filter(|&&r| m.get(c, r) > 0)
        .map(|&r| format!("{}{}", role_chinese(c, r), m.get(c, r)))
        .collect();
    if parts.is_empty() {
        "-".into()
    } else {
        parts.join(" ")
    }
}

/// The text of `jieqi record show`.
pub fn show(rec: &Record, ply: Option<usize>, n: Notation) -> anyhow::Result<String> {
    let positions = rec.positions();
    let at = ply.unwrap_or(rec.moves.len());
    if at > rec.moves.len() {
        bail!("--ply {at}: the record has {} plies", rec.moves.len());
    }
    let pos: &Position = &positions[at];
    let last = at.checked_sub(1).map(|i| rec.moves[i].mv);
    let mut out = String::new();
    let mut tags: Vec<String> = rec.tags.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    tags.push(format!("Result: {}", rec.result));
    out.push_str(&tags.join(" | "));
    out.push_str("\n\n");
    out.push_str("   ");
    for f in 1..=9 {
        out.push_str(&format!("  {f}  "));
    }
    out.push('\n');
    for rank in (0..10).rev() {
        out.push_str(&format!("{rank}  "));
        for file in 0..9 {
            let sq = Square::from_xy(file, rank).expect("on the board");
            out.push_str(&cell(
                pos.piece_at(sq),
                last.is_some_and(|m| m.to == sq),
                last.is_some_and(|m| m.from == sq),
            ));
        }
        out.push('\n');
        if rank == 5 {
            out.push_str("   ───────────── 楚河        汉界 ─────────────\n");
        }
    }
    out.push_str("   ");
    for f in RED_FILES {
        out.push_str(&format!(" {f}  "));
    }
    out.push_str("\n   ");
    for f in 'a'..='i' {
        out.push_str(&format!("  {f}  "));
    }
    out.push_str("\n\n");
    out.push_str(&format!(
        "After ply {at}: {} to move{}\n",
        if pos.turn() == Color::Red {
            "Red (红)"
        } else {
            "Black (黑)"
        },
        if pos.is_check() {
            ", in check (将军)"
        } else {
            ""
        }
    ));
    out.push_str(&format!("FEN: {}\n", pos.fen()));
    out.push_str(&format!(
        "Pools (暗子): Red {} | Black {}\n",
        pool_text(pos.pool(), Color::Red),
        pool_text(pos.pool(), Color::Black)
    ));
    if !pos.captured().is_empty() {
        out.push_str(&format!(
            "Captured face-down, identity known: Red {} | Black {}\n",
            pool_text(pos.captured(), Color::Red),
            pool_text(pos.captured(), Color::Black)
        ));
    }
    out.push_str("\nMoves:\n");
    let texts = rec.move_texts(n);
    let start = &rec.start;
    let black_first = start.turn() == Color::Black;
    let mut line = String::new();
    for (i, t) in texts.iter().enumerate() {
        let k = i + usize::from(black_first);
        let number = start.fullmove() as usize + k / 2;
        let marker = if i + 1 == at { "*" } else { "" };
        if k % 2 == 0 {
            line = format!("{number:>3}. {t}{marker}");
        } else {
            if line.is_empty() {
                line = format!("{number:>3}. ...");
            }
            let pad = 20usize.saturating_sub(
                line.chars().count() + line.chars().filter(|c| !c.is_ascii()).count(),
            );
            line.push_str(&" ".repeat(pad.max(2)));
            line.push_str(&format!("{t}{marker}"));
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
    }
    if !line.is_empty() {
        out.push_str(&line);
        out.push('\n');
    }
    for a in &rec.adjustments {
        out.push_str(&format!("Edit (调整) after ply {}: {}\n", a.at, a.data));
    }
    if rec.deal.is_some() {
        out.push_str("Deal: known (the record is the referee's)\n");
    } else if rec.deal_commitment.is_some() {
        out.push_str("Deal: secret (commitment only)\n");
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use jieqi_core::notation::Script;

    #[test]
    fn show_marks_the_last_move_and_lists_moves() {
        let rec = jieqi_core::record::pgn::read(
            "[Deal \"RNBAARNPCCPBPPP/rnbaabnrcpppcpp\"]\n1. 假兵七进一现相 假卒5进1现炮 2. 假相三进五现车 炮5进3 *",
        )
        .unwrap();
        let text = show(&rec, Some(2), Notation::Chinese(Script::Simplified)).unwrap();
        assert!(text.contains("*[炮]"), "{text}");
        assert!(text.contains("in check"), "{text}");
        assert!(text.contains("1. 兵七进一相"), "{text}");
        assert!(text.contains("卒5进1炮*"), "{text}");
        assert!(text.contains("(暗)") && text.contains("[暗]"));
        assert!(
            text.contains(
                "Pools (暗子): Red 仕2 相1 马2 车2 炮2 兵5 | Black 士2 象2 马2 车2 炮1 卒5"
            ),
            "{text}"
        );
        assert!(show(&rec, Some(9), Notation::Wxf).is_err());
    }

    fn data(name: &str) -> PathBuf {
        PathBuf::from(format!(
            "{}/../jieqi-core/tests/data/records/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
    }

    fn verify_file(file: PathBuf) -> anyhow::Result<()> {
        run(RecordArgs {
            command: RecordCommand::Verify { file },
        })
    }

    fn verify(name: &str) -> anyhow::Result<()> {
        verify_file(data(name))
    }

    #[test]
    fn verify_checks_every_game_of_a_file() {
        let read = |name| std::fs::read_to_string(data(name)).unwrap();
        let (good, bad) = (read("seed004.pgn"), read("seed004_bad_reveal.pgn"));
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("games.pgn");
        std::fs::write(&file, format!("{good}\n{good}\n")).unwrap();
        verify_file(file.clone()).unwrap();
        std::fs::write(&file, format!("{good}\n{bad}\n{good}")).unwrap();
        let e = verify_file(file.clone()).unwrap_err().to_string();
        assert!(e.contains("games.pgn game 2: rejected at ply 3"), "{e}");
        assert!(!e.contains("game 1") && !e.contains("game 3"), "{e}");
        std::fs::write(&file, "\n").unwrap();
        let e = verify_file(file).unwrap_err().to_string();
        assert!(e.contains("no game"), "{e}");
    }

    fn convert(input: PathBuf, output: PathBuf, to: &str, n: &str) {
        run(RecordArgs {
            command: RecordCommand::Convert {
                input,
                output,
                to: Some(to.into()),
                notation: n.into(),
                viewer: "referee".into(),
            },
        })
        .unwrap();
    }

    #[test]
    fn convert_keeps_jieqibox_files() {
        let dir = tempfile::tempdir().unwrap();
        let (same, pgn, back) = (
            dir.path().join("same.json"),
            dir.path().join("a.pgn"),
            dir.path().join("back.json"),
        );
        let original = std::fs::read_to_string(data("jieqibox_analysis.json")).unwrap();
        convert(
            data("jieqibox_analysis.json"),
            same.clone(),
            "jieqibox",
            "chinese",
        );
        assert_eq!(std::fs::read_to_string(&same).unwrap(), original);
        convert(
            data("jieqibox_analysis.json"),
            pgn.clone(),
            "pgn",
            "jieqibox",
        );
        let text = std::fs::read_to_string(&pgn).unwrap();
        assert!(text.contains("[%adjust \"captured_a+\""), "{text}");
        assert!(text.contains("翻"), "JieqiBox's style: {text}");
        convert(pgn.clone(), back.clone(), "jieqibox", "chinese");
        let (a, b): (serde_json::Value, serde_json::Value) = (
            serde_json::from_str(&original).unwrap(),
            serde_json::from_str(&std::fs::read_to_string(&back).unwrap()).unwrap(),
        );
        let entries = |v: &serde_json::Value| -> Vec<[serde_json::Value; 5]> {
            v["moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| ["type", "data", "fen", "engineScore", "engineTime"].map(|k| e[k].clone()))
                .collect()
        };
        assert_eq!(entries(&a), entries(&b));
        let rec = load(&back).unwrap();
        let shown = show(&rec, None, Notation::Chinese(Script::JieqiBox)).unwrap();
        assert!(
            shown.contains("Edit (调整) after ply 6: position_edit:"),
            "{shown}"
        );
    }

    #[test]
    fn verify_fails_on_tampered_records() {
        verify("seed004.pgn").unwrap();
        let e = verify("seed004_bad_reveal.pgn").unwrap_err().to_string();
        assert!(e.contains("rejected at ply 3"), "{e}");
        let e = verify("seed004_bad_commitment.pgn")
            .unwrap_err()
            .to_string();
        assert!(e.contains("commitment"), "{e}");
        assert!(verify("no_such_file.pgn").is_err());
    }
}
