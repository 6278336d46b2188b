#![no_main]
//! Any text as a deal never panics; accepted deals write back to themselves; any bytes
//! as a seed give a valid deal.

use jieqi_core::Deal;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data)
        && let Ok(d) = Deal::parse(text)
    {
        assert_eq!(Deal::parse(&d.to_string()).unwrap(), d);
    }
    let d = Deal::from_seed(data);
    assert_eq!(Deal::parse(&d.to_string()).unwrap(), d);
});
