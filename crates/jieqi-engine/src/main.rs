//! `jieqi-engine`: the Jieqi engine speaking UCI on stdin/stdout at once (GUIs often
//! cannot pass arguments); `jieqi-engine bench [DEPTH]` runs the bench.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("bench") {
        let depth = args.get(1).and_then(|d| d.parse().ok());
        let r = jieqi_engine::bench::run(depth, &mut |l| println!("{l}"));
        println!("{}", r.summary());
        return;
    }
    let stdin = std::io::BufReader::new(std::io::stdin());
    jieqi_engine::uci::run(stdin, std::io::stdout());
}
