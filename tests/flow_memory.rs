//! Memory of one-line flow files: the YAML scanner queued every token of
//! a file whose root is a flow collection (a 3 MB one-line file took 429 MB). The same
//! actions written as a one-line flow list and as a block list now cost about the same; they
//! cost five times as much before.

#![cfg(target_os = "linux")]

mod common;

use std::path::Path;

/// `n` actions as a block list and as one line of flow, each about `size` bytes.
fn actions(size: usize) -> (String, String) {
    let (mut block, mut flow) = (String::new(), Vec::new());
    let mut i = 0;
    while block.len() < size {
        block.push_str(&format!(
            "- actionId: list_users_{i}\n  label: List users {i}\n  description: Lists the users.\n  steps:\n    - stepId: call\n      stepFunction:\n        functionName: request\n        parameters:\n          url: /users/{i}\n          method: get\n"
        ));
        flow.push(format!(
            "{{actionId: list_users_{i}, label: List users {i}, description: Lists the users., steps: [{{stepId: call, stepFunction: {{functionName: request, parameters: {{url: /users/{i}, method: get}}}}}}]}}"
        ));
        i += 1;
    }
    (block, format!("[{}]\n", flow.join(", ")))
}

/// Peak resident memory (KiB) of `check` on a catalog of `text`, and its exit code.
fn peak_of_check(dir: &Path, text: &str) -> (i64, i32) {
    common::write_file(dir, "catalog/x/x.s1.yaml", text);
    // Reaped by wait4 below, which also reports its peak memory.
    #[allow(clippy::zombie_processes)]
    let child = std::process::Command::new(common::bin())
        .args(["check", "catalog", "-q"])
        .current_dir(dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut status = 0;
    // SAFETY: an all-zero rusage is valid; wait4 fills it for the child it reaps.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    // SAFETY: pid is our child, not reaped yet; both pointers are valid for the call.
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(reaped, pid);
    (usage.ru_maxrss, libc::WEXITSTATUS(status))
}

#[test]
fn a_one_line_flow_file_costs_what_the_same_block_file_costs() {
    let (block, flow) = actions(3_000_000);
    let tmp = tempfile::tempdir().unwrap();
    let (block_peak, code) = peak_of_check(&tmp.path().join("block"), &block);
    assert_eq!(code, 1, "every action lacks effects");
    let (flow_peak, code) = peak_of_check(&tmp.path().join("flow"), &flow);
    assert_eq!(code, 1);
    eprintln!(
        "peak: block {block_peak} KiB, one-line flow {flow_peak} KiB, for {} and {} bytes",
        block.len(),
        flow.len()
    );
    assert!(
        flow_peak * 2 <= block_peak * 3,
        "one-line flow {flow_peak} KiB against block {block_peak} KiB"
    );
}
