//! The event: one serialisable value and the operations of a tournament director.

use jieqi_core::{Color, Deal};
use serde::{Deserialize, Serialize};

use crate::PlayerId;
use crate::deals::{DealMode, DealRecord, Entropy, random_deal};
use crate::error::TournamentError;
use crate::model::{Bracket, Format, Game, GameResult, Phase, Player, Round, Settings};
use crate::round_robin::{berger_round, rounds_per_cycle};
use crate::swiss::{self, Float, SwissEntrant};

/// Version of the saved format.
pub const STATE_VERSION: u32 = 1;

/// A whole event: settings, players, rounds, the bracket and every deal.
///
/// This is the file an organiser keeps (it holds unpublished deals and salts, so it is
/// secret until the end); [`crate::export`] makes the public views.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tournament {
    /// Saved-format version.
    pub version: u32,
    /// Event name.
    pub name: String,
    /// Format, deal mode, tie-breaks, bye value.
    pub settings: Settings,
    /// Players in entry order; a [`PlayerId`] indexes this list.
    pub players: Vec<Player>,
    /// Rounds in order.
    pub rounds: Vec<Round>,
    /// The knockout bracket, once seeded.
    #[serde(default)]
    pub bracket: Option<Bracket>,
    /// Every deal of the event, committed.
    #[serde(default)]
    pub deals: Vec<DealRecord>,
}

/// Options of one `pair` call.
#[derive(Clone, Debug, Default)]
pub struct PairOptions {
    /// Deal mode for this round (default: the event's).
    pub deal_mode: Option<DealMode>,
    /// Organiser mode: one deal for every board, or one per board.
    pub organiser_deals: Vec<Deal>,
}

impl Tournament {
    /// The name of round `r` (from 1): "Round 3" in the table phase, the stage's name
    /// ("Quarter-final", "Semi-final", "Final") in the knockout.
    pub fn round_name(&self, r: usize) -> crate::model::RoundName {
        match self.rounds.get(r.wrapping_sub(1)).map(|x| x.phase) {
            Some(Phase::Knockout { stage }) => self
                .bracket
                .as_ref()
                .map_or(crate::model::RoundName::Stage(0), |b| b.stage_name(stage)),
            _ => crate::model::RoundName::Table(r),
        }
    }

    /// A new event without players.
    pub fn new(name: &str, settings: Settings) -> Result<Tournament, TournamentError> {
        let bad = |s: &str| Err(TournamentError::Settings(s.to_string()));
        match &settings.format {
            Format::Swiss { rounds } if *rounds == 0 => return bad("a Swiss needs rounds >= 1"),
            Format::RoundRobin { cycles } if !(1..=2).contains(cycles) => {
                return bad("a round robin has 1 or 2 cycles");
            }
            Format::SwissKnockout {
                swiss_rounds,
                qualifiers,
                ..
            } if *swiss_rounds == 0 || *qualifiers < 2 => {
                return bad("Swiss then knockout needs rounds >= 1 and qualifiers >= 2");
            }
            _ => {}
        }
        if let Some(k) = settings.format.knockout() {
            if k.best_of == 0 || k.best_of > 99 {
                return bad("best-of must be between 1 and 99");
            }
        }
        if settings.bye_half_points > 2 {
            return bad("a bye is worth 0, 1/2 or 1 point");
        }
        Ok(Tournament {
            version: STATE_VERSION,
            name: name.to_string(),
            settings,
            players: Vec::new(),
            rounds: Vec::new(),
            bracket: None,
            deals: Vec::new(),
        })
    }

    /// Reads a saved state and checks that it is consistent.
    pub fn from_json(text: &str) -> Result<Tournament, TournamentError> {
        let t: Tournament =
            serde_json::from_str(text).map_err(|e| TournamentError::Parse(e.to_string()))?;
        t.validate()?;
        Ok(t)
    }

    /// The saved form (pretty JSON).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a tournament always serialises")
    }

    /// Checks every index and text in the state, so later operations cannot panic.
    pub fn validate(&self) -> Result<(), TournamentError> {
        let bad = |s: String| Err(TournamentError::Invalid(s));
        if self.version != STATE_VERSION {
            return bad(format!(
                "version {} (this program reads {STATE_VERSION})",
                self.version
            ));
        }
        Tournament::new(&self.name, self.settings.clone())
            .map_err(|e| TournamentError::Invalid(e.to_string()))?;
        let n = self.players.len() as PlayerId;
        let mut names = std::collections::HashSet::new();
        for p in &self.players {
            if p.name.trim().is_empty() || !names.insert(p.name.as_str()) {
                return bad(format!("player name {:?} is empty or repeated", p.name));
            }
        }
        for (i, d) in self.deals.iter().enumerate() {
            if let Some(text) = &d.deal {
                if Deal::parse(text).is_err() {
                    return bad(format!("deal {} is not a deal: {text:?}", i + 1));
                }
            }
        }
        let stages = self.bracket.as_ref().map_or(0, |b| b.stages.len());
        for (ri, r) in self.rounds.iter().enumerate() {
            let mut seen = std::collections::HashSet::new();
            for g in &r.games {
                if g.red >= n || g.black >= n || g.red == g.black {
                    return bad(format!("round {}: a game has a bad player number", ri + 1));
                }
                if !seen.insert(g.red) || !seen.insert(g.black) {
                    return bad(format!("round {}: a player has two boards", ri + 1));
                }
                if g.deal.is_some_and(|d| d >= self.deals.len()) {
                    return bad(format!("round {}: a game refers to a missing deal", ri + 1));
                }
                if let Some(m) = g.knockout {
                    let b = self.bracket.as_ref();
                    let ok = b
                        .and_then(|b| b.stages.get(m.stage))
                        .and_then(|s| s.matches.get(m.index))
                        .is_some_and(|mt| {
                            let pair = [Some(g.red), Some(g.black)];
                            pair.contains(&Some(mt.high)) && pair.contains(&mt.low)
                        });
                    if !ok || m.game == 0 || !matches!(r.phase, Phase::Knockout { .. }) {
                        return bad(format!("round {}: a knockout game has no match", ri + 1));
                    }
                } else if !r.is_table() {
                    return bad(format!("round {}: a knockout game has no match", ri + 1));
                }
            }
            if let Some(b) = r.bye {
                if b >= n || seen.contains(&b) {
                    return bad(format!("round {}: bad bye", ri + 1));
                }
            }
            if let Phase::Knockout { stage } = r.phase {
                if stage >= stages {
                    return bad(format!("round {}: no such knockout stage", ri + 1));
                }
            }
        }
        if let Some(b) = &self.bracket {
            let mut seen = std::collections::HashSet::new();
            if b.entrants.iter().any(|&e| e >= n || !seen.insert(e)) || b.entrants.len() < 2 {
                return bad("bracket entrants are bad".to_string());
            }
            if b.stages.is_empty() || b.stages.iter().any(|s| s.matches.is_empty()) {
                return bad("a bracket stage has no matches".to_string());
            }
            if self.settings.format.knockout().is_none() {
                return bad("a bracket in a format without knockout".to_string());
            }
            for s in &b.stages {
                for m in &s.matches {
                    if !b.entrants.contains(&m.high)
                        || m.low
                            .is_some_and(|l| !b.entrants.contains(&l) || l == m.high)
                    {
                        return bad("a bracket match has a player outside the bracket".into());
                    }
                }
            }
        }
        Ok(())
    }

    /// Enters a player; returns his id.
    pub fn add_player(&mut self, player: Player) -> Result<PlayerId, TournamentError> {
        let name = player.name.trim().to_string();
        if name.is_empty() || self.players.iter().any(|p| p.name == name) {
            return Err(TournamentError::DuplicateName(player.name.clone()));
        }
        if !self.rounds.is_empty() {
            match self.settings.format {
                Format::RoundRobin { .. } => {
                    return Err(TournamentError::FieldFixed("the round robin has begun"));
                }
                Format::Knockout(_) => {
                    return Err(TournamentError::FieldFixed("the bracket is drawn"));
                }
                _ if self.bracket.is_some() => {
                    return Err(TournamentError::FieldFixed("the knockout is seeded"));
                }
                _ => {}
            }
        }
        let mut player = player;
        player.name = name;
        self.players.push(player);
        Ok(self.players.len() as PlayerId - 1)
    }

    /// Marks a player as withdrawn: he is not paired again (results stand).
    pub fn withdraw(&mut self, p: PlayerId) -> Result<(), TournamentError> {
        let player = self
            .players
            .get_mut(p as usize)
            .ok_or_else(|| TournamentError::UnknownPlayer(p.to_string()))?;
        player.withdrawn = true;
        Ok(())
    }

    /// Finds a player by exact name, or by start number (1-based, ranking-list order).
    pub fn find_player(&self, key: &str) -> Result<PlayerId, TournamentError> {
        let key = key.trim();
        if let Some(i) = self.players.iter().position(|p| p.name == key) {
            return Ok(i as PlayerId);
        }
        if let Ok(n) = key.parse::<usize>() {
            if let Some(&p) = self.ranking_list().get(n.wrapping_sub(1)) {
                return Ok(p);
            }
        }
        Err(TournamentError::UnknownPlayer(key.to_string()))
    }

    /// The ranking list (pairing numbers): by seed, then rating (higher first), then
    /// entry order.
    pub fn ranking_list(&self) -> Vec<PlayerId> {
        let mut ids: Vec<PlayerId> = (0..self.players.len() as PlayerId).collect();
        ids.sort_by_key(|&i| {
            let p = &self.players[i as usize];
            (
                p.seed.unwrap_or(u32::MAX),
                std::cmp::Reverse(p.rating.unwrap_or(0)),
                i,
            )
        });
        ids
    }

    /// A player's start number (1-based position in the ranking list).
    pub fn start_number(&self, p: PlayerId) -> usize {
        self.ranking_list()
            .iter()
            .position(|&x| x == p)
            .map_or(0, |i| i + 1)
    }

    /// Players who can be paired.
    pub fn active_players(&self) -> Vec<PlayerId> {
        self.ranking_list()
            .into_iter()
            .filter(|&p| !self.players[p as usize].withdrawn)
            .collect()
    }

    /// Number of Swiss or round-robin rounds in the format (0 for a pure knockout).
    pub fn table_rounds_planned(&self) -> u32 {
        match &self.settings.format {
            Format::Swiss { rounds } => *rounds,
            Format::SwissKnockout { swiss_rounds, .. } => *swiss_rounds,
            Format::RoundRobin { cycles } => {
                let n = self.round_robin_field().len() as u32;
                cycles * rounds_per_cycle(n)
            }
            Format::Knockout(_) => 0,
        }
    }

    fn round_robin_field(&self) -> Vec<PlayerId> {
        // The field is fixed when round 1 is paired: everyone paired or byed in it.
        if let Some(r) = self.rounds.first() {
            let mut ids: Vec<PlayerId> = r
                .games
                .iter()
                .flat_map(|g| [g.red, g.black])
                .chain(r.bye)
                .collect();
            let rank = self.ranking_list();
            ids.sort_by_key(|p| rank.iter().position(|x| x == p));
            ids
        } else {
            self.active_players()
        }
    }

    /// Table (Swiss or round-robin) rounds paired so far.
    pub fn table_rounds_paired(&self) -> usize {
        self.rounds.iter().filter(|r| r.is_table()).count()
    }

    /// Pairs the next round and commits its deals; returns the round number (1-based).
    pub fn pair(
        &mut self,
        opts: &PairOptions,
        rng: &mut dyn Entropy,
    ) -> Result<usize, TournamentError> {
        if let Some(last) = self.rounds.last() {
            if !last.complete() {
                return Err(TournamentError::RoundIncomplete {
                    round: self.rounds.len(),
                    boards: last
                        .games
                        .iter()
                        .enumerate()
                        .filter(|(_, g)| g.result.is_none())
                        .map(|(i, _)| i + 1)
                        .collect(),
                });
            }
        }
        let mode = opts.deal_mode.unwrap_or(self.settings.deal_mode);
        let planned = self.table_rounds_planned() as usize;
        let done = self.table_rounds_paired();
        let first_table =
            self.rounds.is_empty() && !matches!(self.settings.format, Format::Knockout(_));
        let mut round = if done < planned || first_table {
            match self.settings.format {
                Format::RoundRobin { .. } => self.pair_round_robin(done)?,
                _ => self.pair_swiss()?,
            }
        } else if self.settings.format.knockout().is_some() {
            self.pair_knockout()?
        } else {
            return Err(TournamentError::Finished);
        };
        round.deal_mode = mode;
        self.assign_deals(&mut round, opts, rng)?;
        self.rounds.push(round);
        Ok(self.rounds.len())
    }

    fn pair_swiss(&self) -> Result<Round, TournamentError> {
        let active = self.active_players();
        if active.len() < 2 {
            return Err(TournamentError::NotEnoughPlayers {
                need: 2,
                have: active.len(),
            });
        }
        let entrants = self.swiss_entrants(&active);
        let pairing = swiss::pair(&entrants, Color::Red);
        Ok(Round {
            phase: Phase::Swiss,
            deal_mode: self.settings.deal_mode,
            games: pairing
                .boards
                .iter()
                .map(|&(red, black)| Game {
                    red,
                    black,
                    result: None,
                    deal: None,
                    knockout: None,
                })
                .collect(),
            bye: pairing.bye,
            relaxed: Some(pairing.relaxed),
        })
    }

    /// What the Swiss pairer knows of a player after the table rounds so far.
    pub fn swiss_entrant(&self, p: PlayerId) -> SwissEntrant {
        self.swiss_entrants(&[p]).pop().expect("one entrant")
    }

    /// What the Swiss pairer knows of each of `ids` after the table rounds so far.
    pub fn swiss_entrants(&self, ids: &[PlayerId]) -> Vec<SwissEntrant> {
        let n = self.players.len();
        let mut all: Vec<SwissEntrant> = (0..n as PlayerId)
            .map(|id| SwissEntrant {
                id,
                score: 0,
                colours: Vec::new(),
                opponents: Vec::new(),
                had_bye: false,
                floats: Vec::new(),
            })
            .collect();
        for r in self.rounds.iter().filter(|r| r.is_table()) {
            // Scores before the round decide who floated.
            let before: Vec<u32> = all.iter().map(|e| e.score).collect();
            let mut floats = vec![Float::None; n];
            if let Some(b) = r.bye.filter(|&b| (b as usize) < n) {
                let e = &mut all[b as usize];
                e.had_bye = true;
                e.score += self.settings.bye_half_points;
                floats[b as usize] = Float::Down;
            }
            for g in &r.games {
                let (red, black) = (g.red as usize, g.black as usize);
                if red >= n || black >= n {
                    continue;
                }
                all[red].opponents.push(g.black);
                all[black].opponents.push(g.red);
                let (fr, fb) = match before[red].cmp(&before[black]) {
                    std::cmp::Ordering::Greater => (Float::Down, Float::Up),
                    std::cmp::Ordering::Less => (Float::Up, Float::Down),
                    std::cmp::Ordering::Equal => (Float::None, Float::None),
                };
                floats[red] = fr;
                floats[black] = fb;
                if let Some(res) = g.result {
                    let (hr, hb) = res.half_points();
                    all[red].score += hr;
                    all[black].score += hb;
                    if res.played() {
                        all[red].colours.push(Color::Red);
                        all[black].colours.push(Color::Black);
                    }
                }
            }
            for (e, f) in all.iter_mut().zip(floats) {
                e.floats.push(f);
            }
        }
        ids.iter()
            .map(|&p| {
                all.get(p as usize).cloned().unwrap_or(SwissEntrant {
                    id: p,
                    score: 0,
                    colours: Vec::new(),
                    opponents: Vec::new(),
                    had_bye: false,
                    floats: Vec::new(),
                })
            })
            .collect()
    }

    fn pair_round_robin(&self, done: usize) -> Result<Round, TournamentError> {
        let field = self.round_robin_field();
        if field.len() < 2 {
            return Err(TournamentError::NotEnoughPlayers {
                need: 2,
                have: field.len(),
            });
        }
        let n = (field.len() + field.len() % 2) as u32;
        let per_cycle = (n - 1) as usize;
        let cycle = done / per_cycle + 1;
        let r = (done % per_cycle) as u32 + 1;
        let mut games = Vec::new();
        let mut bye = None;
        for (a, b) in berger_round(n, r) {
            let (a, b) = if cycle % 2 == 0 { (b, a) } else { (a, b) };
            let pa = field.get(a as usize - 1).copied();
            let pb = field.get(b as usize - 1).copied();
            match (pa, pb) {
                (Some(red), Some(black)) => games.push(Game {
                    red,
                    black,
                    result: None,
                    deal: None,
                    knockout: None,
                }),
                (Some(x), None) | (None, Some(x)) => bye = Some(x),
                (None, None) => {}
            }
        }
        Ok(Round {
            phase: Phase::RoundRobin {
                cycle: cycle as u32,
            },
            deal_mode: self.settings.deal_mode,
            games,
            bye,
            relaxed: None,
        })
    }

    fn assign_deals(
        &mut self,
        round: &mut Round,
        opts: &PairOptions,
        rng: &mut dyn Entropy,
    ) -> Result<(), TournamentError> {
        let boards = round.games.len();
        match round.deal_mode {
            DealMode::Random => {
                for g in &mut round.games {
                    let deal = random_deal(rng);
                    g.deal =
                        Some(self.push_deal(DealRecord::committed(DealMode::Random, &deal, rng)));
                }
            }
            DealMode::Duplicate => {
                let reuse = self.colour_swapped_partner_deal(round);
                let shared = match reuse {
                    Some(d) => d,
                    None if boards == 0 => return Ok(()),
                    None => {
                        let deal = random_deal(rng);
                        self.push_deal(DealRecord::committed(DealMode::Duplicate, &deal, rng))
                    }
                };
                for g in &mut round.games {
                    g.deal = Some(shared);
                }
            }
            DealMode::Organiser => {
                let given = opts.organiser_deals.len();
                if !(given == 1 || (given == boards && boards > 0)) {
                    return Err(TournamentError::OrganiserDeals { boards, given });
                }
                let ids: Vec<usize> = opts
                    .organiser_deals
                    .iter()
                    .map(|d| self.push_deal(DealRecord::committed(DealMode::Organiser, d, rng)))
                    .collect();
                for (i, g) in round.games.iter_mut().enumerate() {
                    g.deal = Some(ids[if given == 1 { 0 } else { i }]);
                }
            }
            DealMode::Joint => {
                for g in &mut round.games {
                    g.deal = Some(self.push_deal(DealRecord::pending_joint(rng)));
                }
            }
        }
        Ok(())
    }

    fn push_deal(&mut self, rec: DealRecord) -> usize {
        self.deals.push(rec);
        self.deals.len() - 1
    }

    /// In duplicate mode, the deal this round reuses as the colour-swapped repeat of an
    /// earlier round: the matching round of the first cycle of a double round robin, or
    /// the previous game of the knockout matches (games 1–2, 3–4, … share a deal).
    fn colour_swapped_partner_deal(&self, round: &Round) -> Option<usize> {
        match round.phase {
            Phase::RoundRobin { cycle } if cycle >= 2 => {
                let per_cycle = rounds_per_cycle(self.round_robin_field().len() as u32) as usize;
                let idx = self.table_rounds_paired().checked_sub(per_cycle)?;
                let partner = self.rounds.iter().filter(|r| r.is_table()).nth(idx)?;
                if partner.deal_mode != DealMode::Duplicate {
                    return None;
                }
                partner.games.first().and_then(|g| g.deal)
            }
            Phase::Knockout { .. } => {
                let first = round.games.first()?.knockout?;
                if first.game % 2 == 1 {
                    return None;
                }
                let prev = self.rounds.last()?;
                if prev.deal_mode != DealMode::Duplicate {
                    return None;
                }
                prev.games
                    .iter()
                    .find(|g| {
                        g.knockout
                            .is_some_and(|m| m.stage == first.stage && m.game + 1 == first.game)
                    })
                    .and_then(|g| g.deal)
            }
            _ => None,
        }
    }

    /// Removes the last round if no result has been entered, with its new deals, so it
    /// can be paired again (after corrections, withdrawals or late entries).
    pub fn unpair(&mut self) -> Result<usize, TournamentError> {
        let n = self.rounds.len();
        let last = self.rounds.last().ok_or(TournamentError::NoRounds)?;
        if last.started() {
            return Err(TournamentError::RoundStarted(n));
        }
        let removed = self.rounds.pop().expect("checked above");
        // Drop knockout stages (and the bracket) that no remaining game refers to, so a
        // re-pair seeds afresh from the current standings.
        if let Phase::Knockout { stage } = removed.phase {
            let still_used = self
                .rounds
                .iter()
                .any(|r| matches!(r.phase, Phase::Knockout { stage: s } if s == stage));
            if !still_used {
                if let Some(b) = &mut self.bracket {
                    b.stages.truncate(stage);
                    if b.stages.is_empty() {
                        self.bracket = None;
                    }
                }
            }
        }
        let keep = self
            .rounds
            .iter()
            .flat_map(|r| r.games.iter().filter_map(|g| g.deal))
            .max()
            .map_or(0, |m| m + 1);
        self.deals.truncate(keep);
        Ok(n)
    }

    /// Enters (or, with `correct`, changes) the result of board `board` of round
    /// `round` (both 1-based).
    pub fn set_result(
        &mut self,
        round: usize,
        board: usize,
        result: GameResult,
        correct: bool,
    ) -> Result<(), TournamentError> {
        let r = self
            .rounds
            .get(round.wrapping_sub(1))
            .ok_or(TournamentError::NoSuchRound(round))?;
        let g = r
            .games
            .get(board.wrapping_sub(1))
            .ok_or(TournamentError::NoSuchBoard { round, board })?;
        if let Some(old) = g.result {
            if !correct {
                return Err(TournamentError::AlreadyHasResult {
                    round,
                    board,
                    old: old.text(),
                });
            }
            if old != result {
                if r.is_table() && self.bracket.is_some() {
                    return Err(TournamentError::CorrectionRefused {
                        round,
                        why: "the knockout is already seeded from these standings",
                    });
                }
                if !r.is_table() && round != self.rounds.len() {
                    return Err(TournamentError::CorrectionRefused {
                        round,
                        why: "later knockout games depend on it (unpair them first)",
                    });
                }
            }
        }
        self.rounds[round - 1].games[board - 1].result = Some(result);
        self.publish_finished_deals();
        Ok(())
    }

    /// Records a player's secret contribution to a joint deal; when both are in, the
    /// deal is drawn (`Deal::joint`) and committed.
    pub fn contribute(
        &mut self,
        round: usize,
        board: usize,
        side: Color,
        secret: &str,
    ) -> Result<(), TournamentError> {
        let err = |why| TournamentError::Contribution { round, board, why };
        let r = self
            .rounds
            .get(round.wrapping_sub(1))
            .ok_or(TournamentError::NoSuchRound(round))?;
        let g = r
            .games
            .get(board.wrapping_sub(1))
            .ok_or(TournamentError::NoSuchBoard { round, board })?;
        let d = g.deal.ok_or_else(|| err("this board has no deal"))?;
        let rec = &mut self.deals[d];
        if rec.mode != DealMode::Joint {
            return Err(err("this board's deal is not a joint deal"));
        }
        if secret.is_empty() {
            return Err(err("a contribution must not be empty"));
        }
        let slot = match side {
            Color::Red => &mut rec.red_contribution,
            Color::Black => &mut rec.black_contribution,
        };
        if slot.is_some() {
            return Err(err("this side has already contributed"));
        }
        *slot = Some(secret.to_string());
        if let (Some(r), Some(b)) = (&rec.red_contribution, &rec.black_contribution) {
            let deal = rec.joint_deal(r, b);
            rec.commitment = Some(deal.commitment(&rec.salt));
            rec.deal = Some(deal.to_string());
        }
        Ok(())
    }

    /// Adds the director's committed seed to every joint deal still waiting for its
    /// contributions (see [`DealRecord::add_server_seed`]); call it right after
    /// pairing, before any contribution. Returns how many got one.
    pub fn seed_joint_deals(&mut self, rng: &mut dyn Entropy) -> usize {
        self.deals
            .iter_mut()
            .filter(|d| d.deal.is_none())
            .map(|d| d.add_server_seed(rng))
            .filter(|&added| added)
            .count()
    }

    /// Publishes every deal whose games are all finished and that no future game of a
    /// colour-swapped pair will reuse.
    pub fn publish_finished_deals(&mut self) {
        for d in 0..self.deals.len() {
            if self.deals[d].published || self.deals[d].deal.is_none() {
                continue;
            }
            let users: Vec<(usize, &Game)> = self
                .rounds
                .iter()
                .enumerate()
                .flat_map(|(ri, r)| r.games.iter().map(move |g| (ri, g)))
                .filter(|(_, g)| g.deal == Some(d))
                .collect();
            if users.is_empty() || users.iter().any(|(_, g)| g.result.is_none()) {
                continue;
            }
            if self.deal_may_be_reused(d, users[0].0) {
                continue;
            }
            self.deals[d].published = true;
        }
    }

    fn deal_may_be_reused(&self, deal: usize, first_round: usize) -> bool {
        let r = &self.rounds[first_round];
        if r.deal_mode != DealMode::Duplicate {
            return false;
        }
        match r.phase {
            Phase::RoundRobin { cycle: 1 } => {
                let Format::RoundRobin { cycles } = self.settings.format else {
                    return false;
                };
                if cycles < 2 {
                    return false;
                }
                let per = rounds_per_cycle(self.round_robin_field().len() as u32) as usize;
                let partner = self
                    .rounds
                    .iter()
                    .filter(|r| r.is_table())
                    .nth(first_round + per);
                // Reused unless the partner round exists with another deal, or is done.
                match partner {
                    None => true,
                    Some(p) => p.games.first().and_then(|g| g.deal) == Some(deal) && !p.complete(),
                }
            }
            Phase::Knockout { .. } => {
                let users_last = self
                    .rounds
                    .iter()
                    .rposition(|r| r.games.iter().any(|g| g.deal == Some(deal)))
                    .unwrap_or(first_round);
                let last = &self.rounds[users_last];
                last.games.iter().any(|g| {
                    g.knockout.is_some_and(|m| {
                        m.game % 2 == 1 && self.match_state(m.stage, m.index).next.is_some()
                    })
                })
            }
            _ => false,
        }
    }

    /// Whether every planned round has been played.
    pub fn is_finished(&self) -> bool {
        let table_done = self.table_rounds_paired() >= self.table_rounds_planned() as usize
            && self.rounds.iter().all(|r| r.complete());
        match self.settings.format.knockout() {
            None => table_done && !self.rounds.is_empty(),
            Some(_) => table_done && self.knockout_finished(),
        }
    }
}
