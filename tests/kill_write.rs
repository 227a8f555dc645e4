//! Killing a `backfill --write` at any moment leaves every file either exactly as
//! it was or exactly as the patch says, never partial.
//!
//! A catalog (the demo catalog plus generated connectors, so the write phase lasts long
//! enough to be hit) is patched once to completion in one copy: that gives every file's
//! new content. Then, over many runs from fixed seeds, a fresh copy is written with
//! `--write` and SIGKILLed after a random delay, and every file must be byte-identical to
//! its old or its new version.
//!
//! A kill between creating a temporary file and renaming it leaves that temporary file
//! (`.<name>.catalog-effects.<pid>.<nanos>.tmp`, next to the file). It is harmless: the real
//! file is intact, and the next run neither reads it (not `*.s1.yaml`, and dot-files are
//! skipped) nor trips over it (names are unique per process and time). The test counts
//! them and checks that a later run completes and leaves the catalog fully patched.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{Rng, bin, copy_dir, fixture_dir};

/// Every regular file under `dir` (dot-files included), relative, with its bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn is_temp(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    name.starts_with('.') && name.contains(".catalog-effects.") && name.ends_with(".tmp")
}

/// The demo catalog plus `n` generated connectors of 30 actions each.
fn make_catalog(dir: &Path, n: usize) {
    copy_dir(&fixture_dir("demo"), dir);
    for c in 0..n {
        let folder = dir.join(format!("gen{c:03}"));
        std::fs::create_dir_all(&folder).unwrap();
        let mut text = format!("info:\n  key: gen{c}\n  title: Gen {c}\nactions:\n");
        for a in 0..30 {
            let (verb, method) = [("list", "get"), ("create", "post"), ("delete", "delete")][a % 3];
            text.push_str(&format!(
                "  - actionId: {verb}_things_{a}\n    label: Thing {a}\n    description: |\n      Does things with thing {a}.\n    steps:\n      - stepId: s\n        stepFunction:\n          functionName: request\n          parameters:\n            url: /things/{a}\n            method: {method}\n"
            ));
        }
        std::fs::write(folder.join(format!("gen{c}.connector.s1.yaml")), text).unwrap();
    }
}

fn backfill(catalog: &Path, out: &Path) -> Command {
    let mut cmd = Command::new(bin());
    // Streamed, each file is written as soon as it is planned, so kills spread over a run
    // land mid-write. With the catalog's evidence every file is planned before the first
    // is written, and the same writes (`replace_if_unchanged`) come in one burst at the
    // end, which random kills rarely hit.
    cmd.arg("backfill")
        .arg(catalog)
        .args([
            "--no-catalog-evidence",
            "--write",
            "--allow-dirty",
            "-q",
            "--patch",
        ])
        .arg(out.join("effects.patch"))
        .arg("--report")
        .arg(out.join("coverage.csv"))
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    cmd
}

/// Puts `old` back into `catalog` and removes anything else (temporary files).
fn reset(catalog: &Path, old: &BTreeMap<String, Vec<u8>>) {
    for rel in files(catalog).keys() {
        if !old.contains_key(rel) {
            std::fs::remove_file(catalog.join(rel)).unwrap();
        }
    }
    for (rel, bytes) in old {
        let p = catalog.join(rel);
        if std::fs::read(&p).ok().as_ref() != Some(bytes) {
            std::fs::write(&p, bytes).unwrap();
        }
    }
}

#[test]
fn killing_a_write_run_leaves_every_file_old_or_new() {
    let dir = tempfile::tempdir().unwrap();
    let out: PathBuf = dir.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    let reference = dir.path().join("reference");
    let catalog = dir.path().join("catalog");
    make_catalog(&reference, 60);
    // Owner-only files: a temporary file a kill leaves must be no more readable than the
    // file it was to replace (it was created 0644).
    #[cfg(unix)]
    for rel in files(&reference).keys() {
        use std::os::unix::fs::PermissionsExt;
        let p = reference.join(rel);
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    copy_dir(&reference, &catalog);
    let old = files(&reference);

    // The new versions: one run to completion.
    let started = Instant::now();
    let status = backfill(&reference, &out).status().unwrap();
    let full = started.elapsed();
    // 2 when `backfill` counts the demo catalog's invalid declarations as errors: the run
    // still completes and writes every other file.
    assert!(matches!(status.code(), Some(0 | 2)), "{status:?}");
    let new = files(&reference);
    assert_eq!(
        old.keys().collect::<Vec<_>>(),
        new.keys().collect::<Vec<_>>()
    );
    let changed = old.iter().filter(|(k, v)| new[*k] != **v).count();
    assert!(changed > 60, "only {changed} files change");

    let runs = 30;
    let mut rng = Rng::new(0x5eed_0007);
    let (mut untouched, mut partial, mut complete, mut temps) = (0, 0, 0, 0);
    for run in 0..runs {
        reset(&catalog, &old);
        // Uniform over the whole run and a tenth more, so kills land while starting and
        // planning, while writing, and (a few) after. Planning is now a small part of a run:
        // the last two thirds alone put every kill mid-write.
        let span = full.as_micros() as u64;
        let delay = Duration::from_micros(rng.next() % (span + span / 10 + 1));
        let mut child = backfill(&catalog, &out).spawn().unwrap();
        std::thread::sleep(delay);
        let _ = child.kill();
        let _ = child.wait();
        let now = files(&catalog);
        let mut new_count = 0;
        for (rel, bytes) in &now {
            if is_temp(rel) {
                temps += 1;
                #[cfg(unix)]
                {
                    use std::os::unix::fs::PermissionsExt;
                    let mode = std::fs::metadata(catalog.join(rel))
                        .unwrap()
                        .permissions()
                        .mode();
                    assert_eq!(mode & 0o777, 0o600, "run {run}: {rel} is mode {mode:o}");
                }
                continue;
            }
            let (o, n) = (
                old.get(rel)
                    .unwrap_or_else(|| panic!("run {run}: unexpected file {rel}")),
                &new[rel],
            );
            assert!(
                bytes == o || bytes == n,
                "run {run} (killed after {delay:?}): {rel} is neither old nor new ({} bytes; old {}, new {})",
                bytes.len(),
                o.len(),
                n.len()
            );
            if bytes != o {
                new_count += 1;
            }
        }
        assert_eq!(
            now.keys().filter(|k| !is_temp(k)).count(),
            old.len(),
            "run {run}: a file disappeared"
        );
        match new_count {
            0 => untouched += 1,
            n if n == changed => complete += 1,
            _ => partial += 1,
        }
    }
    eprintln!(
        "{runs} kills over a {full:?} run: {untouched} before any write, {partial} mid-write, {complete} after; {temps} temporary file(s) left"
    );
    assert!(
        partial > 0,
        "no kill landed in the write phase ({untouched} before, {complete} after): the test proves nothing"
    );

    // After a kill, with whatever temporary files it left, a new run completes the job.
    let status = backfill(&catalog, &out).status().unwrap();
    // 2 when `backfill` counts the demo catalog's invalid declarations as errors: the run
    // still completes and writes every other file.
    assert!(matches!(status.code(), Some(0 | 2)), "{status:?}");
    let after = files(&catalog);
    for (rel, bytes) in &new {
        assert_eq!(&after[rel], bytes, "{rel} not fully patched by the rerun");
    }
}
