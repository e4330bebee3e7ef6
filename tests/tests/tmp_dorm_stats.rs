use mlsched_cli::doc::{self, ScenarioDoc};
use mlsched_kernel::baseline::oasis::OasisBaseline;
use mlsched_kernel::baseline::Policy;
use mlsched_kernel::log::HashSink;
#[test]
fn stats() {
    let list = std::env::var("DORM_FILES").unwrap();
    for p in list.split(',') {
        let text = std::fs::read_to_string(p).unwrap();
        let ScenarioDoc::Oasis(d) = doc::parse(&text).unwrap() else { panic!() };
        let scn = d.validate().unwrap();
        let mut r = OasisBaseline::new(Policy::Dorm, &scn).unwrap();
        let t0 = std::time::Instant::now();
        let res = r.run(&mut HashSink::new(), &mut |_| {});
        eprintln!("{p}: {:?} {:?} in {:?}", res.err(), r.dorm_stats(), t0.elapsed());
    }
}
