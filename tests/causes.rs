//! Errors that name the cause. Each case named another cause before,
//! or none.

mod common;

use common::{http_action, run_in, write_file};

/// A catalog `catalog/acme` of one action without effects, in `root`.
fn catalog(root: &std::path::Path, partial: &str) {
    write_file(
        root,
        "catalog/acme/acme.connector.s1.yaml",
        common::ACME_MAIN,
    );
    write_file(root, "catalog/acme/acme.users.s1.partial.yaml", partial);
}

fn first_error(r: &common::Run) -> &str {
    r.stderr
        .lines()
        .find(|l| l.starts_with("error: "))
        .unwrap_or_else(|| panic!("no error:\n{}{}", r.stdout, r.stderr))
}

#[test]
fn a_repository_git_does_not_trust_is_named_with_safe_directory() {
    let tmp = tempfile::tempdir().unwrap();
    catalog(
        tmp.path(),
        &http_action("delete_user", "delete", "/users/:id", None),
    );
    common::git_init(tmp.path());
    // Owned by another user, as a checkout mounted into a CI container is.
    let chown = std::process::Command::new("chown")
        .args(["-R", "65534:65534"])
        .arg(tmp.path())
        .status();
    if !chown.is_ok_and(|s| s.success()) {
        eprintln!("skipped: cannot give the repository to another user (not root)");
        return;
    }
    for args in [
        &["backfill", "catalog"][..],
        &["backfill", "catalog", "--branch", "effects"],
        &["check", "catalog", "--since", "HEAD"],
    ] {
        let r = run_in(tmp.path(), args);
        assert_eq!(r.code, 2, "{args:?}: {}{}", r.stdout, r.stderr);
        let e = first_error(&r);
        assert!(
            e.contains("git refuses the repository") && e.contains("safe.directory"),
            "{args:?}: {e}"
        );
    }
    assert!(!tmp.path().join("reports/effects.patch").exists());
}

#[test]
fn a_tab_is_named_where_it_is() {
    let tmp = tempfile::tempdir().unwrap();
    catalog(
        tmp.path(),
        "- actionId: list_users\n  label: a\n\tdescription: b\n",
    );
    let r = run_in(tmp.path(), &["check", "catalog"]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(
        first_error(&r).starts_with("error: catalog/acme/acme.users.s1.partial.yaml:3:1: "),
        "{}",
        r.stderr
    );
}

#[test]
fn an_escaped_action_id_key_is_named_as_such() {
    let tmp = tempfile::tempdir().unwrap();
    catalog(
        tmp.path(),
        "- \"action\\u0049d\": list_users\n  label: Users\n",
    );
    let r = run_in(tmp.path(), &["check", "catalog"]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    let e = first_error(&r);
    assert!(
        e.contains(":1:3: the key `actionId` is written with escapes (\"action\\u0049d\")"),
        "{e}"
    );
    assert!(!e.contains("directive"), "{e}");
}

#[test]
fn an_empty_report_path_is_refused_with_its_line() {
    let tmp = tempfile::tempdir().unwrap();
    catalog(
        tmp.path(),
        &http_action("list_users", "get", "/users", None),
    );
    write_file(
        tmp.path(),
        "catalog-effects.toml",
        "catalogs = [\"catalog\"]\nreport = \"\"\n",
    );
    let r = run_in(tmp.path(), &["backfill"]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        first_error(&r),
        "error: catalog-effects.toml:2:1: `report` is an empty path: name a file or folder, or remove the key"
    );
    assert!(!r.stdout.contains("CSV report"), "{}", r.stdout);
}

/// Item 5: with no catalog named and no configuration, the current folder is the catalog;
/// a folder without connector files says what to do. The binary looked for this
/// repository's `catalogs/demo` wherever it ran.
#[test]
fn with_no_catalog_named_the_current_folder_is_the_catalog() {
    let tmp = tempfile::tempdir().unwrap();
    let r = run_in(tmp.path(), &["check"]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    let e = first_error(&r);
    assert!(
        e.starts_with("error: .: no connector files")
            && e.contains("`catalogs` in catalog-effects.toml"),
        "{e}"
    );
    assert!(!r.stderr.contains("catalogs/demo"), "{}", r.stderr);
    catalog(
        tmp.path(),
        &http_action("list_users", "get", "/users", Some("read")),
    );
    let r = run_in(tmp.path(), &["check"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("acme "), "{}", r.stdout);
}

/// A file system mounted for the test, unmounted when dropped.
struct Mount(std::path::PathBuf);

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

/// A full disk under the repository names itself: libgit2 said "no error".
#[test]
fn a_full_disk_is_named_as_such() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("small");
    std::fs::create_dir_all(&root).unwrap();
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=512k", "tmpfs"])
        .arg(&root)
        .output();
    if !mounted.is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: cannot mount a small file system here (needs root)");
        return;
    }
    let _mount = Mount(root.clone());
    catalog(
        &root,
        &http_action("delete_user", "delete", "/users/:id", None),
    );
    common::git_init(&root);
    // Fill the file system (inside .git, so the work tree stays clean).
    let mut filler = std::fs::File::create(root.join(".git/filler")).unwrap();
    let block = vec![0u8; 4096];
    while std::io::Write::write_all(&mut filler, &block).is_ok() {}
    drop(filler);
    let out = tmp.path().join("out");
    let (patch, report) = (out.join("p.patch"), out.join("r.csv"));
    let r = run_in(
        &root,
        &[
            "backfill",
            "catalog",
            "--branch",
            "effects",
            "--patch",
            patch.to_str().unwrap(),
            "--report",
            report.to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    let e = first_error(&r);
    assert!(
        e.contains("cannot store its contents: no space left on the device that holds"),
        "{e}"
    );
}
