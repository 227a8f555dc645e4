use catalog_effects::classify::{RuleSet, infer};
use catalog_effects::view::{ActionView, Step};
fn main() {
    let path = std::env::args()
        .nth(1)
        .unwrap_or("../shared/eval/mcp-dev.tsv".into());
    let rules = RuleSet::builtin().unwrap();
    let text = std::fs::read_to_string(path).unwrap();
    let (mut ro_n, mut mu_n, mut unsafe_n, mut fric, mut cov, mut all) = (0, 0, 0, 0, 0, 0);
    for line in text.lines().skip(1) {
        let c: Vec<&str> = line.split('\t').collect();
        let truth = match (c[5], c[6]) {
            ("true", _) => Some(true),
            ("false", _) | (_, "true") => Some(false),
            _ => None,
        };
        let mut v = ActionView {
            id: c[1].into(),
            label: (!c[2].is_empty()).then(|| c[2].into()),
            description: Some(c[9].into()),
            ..Default::default()
        };
        if !c[3].is_empty() {
            v.steps.push(Step {
                method: Some(c[3].to_lowercase()),
                url: Some(c[4].into()),
                function: Some("request".into()),
                soap_operation: None,
            });
        }
        let inf = infer(&v, &rules);
        all += 1;
        if !inf.effects.is_empty() {
            cov += 1;
        }
        let ro = inf.effects.is_read_only();
        let ids: Vec<_> = inf.deciding_ids(&rules);
        let tag = match truth {
            Some(true) => {
                ro_n += 1;
                if !ro {
                    fric += 1;
                    "FRICTION"
                } else {
                    ""
                }
            }
            Some(false) => {
                mu_n += 1;
                if ro {
                    unsafe_n += 1;
                    "UNSAFE"
                } else {
                    ""
                }
            }
            None => "",
        };
        if !tag.is_empty() || inf.effects.is_empty() || std::env::var("ALL").is_ok() {
            println!(
                "{tag:9} {:28} {:40} {:10} {:6} {:?} | {}",
                c[0],
                c[1],
                inf.effects.joined("|"),
                inf.confidence.map(|c| c.name()).unwrap_or("-"),
                ids,
                &c[9][..c[9].len().min(60)]
            );
        }
    }
    println!(
        "coverage {cov}/{all} = {:.1}%  unsafe {unsafe_n}/{mu_n} = {:.2}%  friction {fric}/{ro_n} = {:.1}%",
        100.0 * cov as f64 / all as f64,
        100.0 * unsafe_n as f64 / mu_n as f64,
        100.0 * fric as f64 / ro_n as f64
    );
}
