//! Git awareness: work-tree root, dirty files, files changed since a revision, and a
//! backfill commit written on a branch without touching the work tree.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

use git2::build::TreeUpdateBuilder;
use git2::{
    BranchType, DiffOptions, ErrorCode, FileMode, Repository, Signature, Status, StatusOptions,
};

use crate::error::{Error, Result};

/// Identity used when the repository has no `user.name`/`user.email`: a backfill commit
/// should still be possible on a fresh CI machine, and this makes its origin obvious.
const FALLBACK_NAME: &str = "catalog-effects";
const FALLBACK_EMAIL: &str = "catalog-effects@localhost";

/// A file's new contents, stored in the repository and ready for a commit.
#[derive(Debug, Clone)]
pub struct Blob {
    path: String,
    id: git2::Oid,
    mode: FileMode,
    /// The commit HEAD was when the blob was made: its mode, and with
    /// [`Repo::stage_edit`] the text it was checked against, are that commit's.
    head: git2::Oid,
}

/// Work-tree-relative paths changed since a revision ([`Repo::changes_since`]).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Changes {
    /// Files in the work tree that differ from the revision, or are new.
    pub changed: BTreeSet<String>,
    /// Paths the revision held and the work tree no longer does: nothing to read there,
    /// but the files beside them (a partial's main file, a main file's `$ref:`) may now
    /// read differently.
    pub gone: BTreeSet<String>,
}

/// A non-bare repository together with its canonical work-tree root, so that every path
/// comparison is made between canonical paths (symlinked temp dirs, `..`, trailing '/').
pub struct Repo {
    repo: Repository,
    root: PathBuf,
}

impl std::fmt::Debug for Repo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Repo").field("root", &self.root).finish()
    }
}

impl Repo {
    /// The repository whose work tree holds `path` (a catalog dir), or None when there is
    /// none (bare repos: None).
    ///
    /// Without a work tree there is nothing to compare the catalog against, so bare
    /// repositories and paths inside `.git` itself count as "no repository".
    pub fn discover(path: &Path) -> Option<Repo> {
        let repo = open(path).ok()?;
        if repo.is_bare() {
            return None;
        }
        let root = repo.workdir()?.canonicalize().ok()?;
        let found = Repo { repo, root };
        let inside = found.relative(path)?;
        if inside == ".git" || inside.starts_with(".git/") {
            return None;
        }
        Some(found)
    }

    /// Canonical root of the work tree.
    pub fn workdir(&self) -> &Path {
        &self.root
    }

    /// `path` (absolute) as messages name it: relative to the current folder when below
    /// it, as the run prints every file, else as it is.
    pub fn shown(&self, path: &Path) -> PathBuf {
        shown(path)
    }

    /// `path` (absolute or relative to cwd) relative to the work-tree root, '/'-separated;
    /// None if outside.
    ///
    /// The root itself is `Some("")`. Paths that do not exist (yet) are resolved through
    /// their deepest existing ancestor so that files about to be created still map. A path
    /// that is not valid UTF-8 gives None: git paths are reported as `String`s and such a
    /// path could never be matched against them.
    pub fn relative(&self, path: &Path) -> Option<String> {
        let absolute = resolve(path)?;
        let rest = absolute.strip_prefix(&self.root).ok()?;
        let mut parts = Vec::new();
        for component in rest.components() {
            match component {
                Component::Normal(part) => parts.push(part.to_str()?),
                _ => return None,
            }
        }
        Some(parts.join("/"))
    }

    /// Whether the index holds work-tree-relative `path` (a file or a symlink git tracks).
    pub fn tracks(&self, path: &str) -> bool {
        self.repo
            .index()
            .is_ok_and(|index| index.get_path(Path::new(path), 0).is_some())
    }

    /// Files (work-tree-relative) under `paths` that no route may edit, with why (a key
    /// ending in `/` stands for every file below it: [`left_alone`]): one git
    /// ignores (a private connector kept out of the repository, secrets included), one it
    /// does not track, and one its index marks skip-worktree or assume-unchanged (its
    /// work-tree copy may hold local edits git hides). The patch, `--write` and `--branch`
    /// all leave these alone, so the three routes touch the same files (`--branch`
    /// committed an ignored file whole, and hidden local edits with it).
    pub fn untouchable(&self, paths: &[PathBuf]) -> Result<BTreeMap<String, &'static str>> {
        let prefixes: Vec<String> = paths.iter().filter_map(|p| self.relative(p)).collect();
        let mut found = BTreeMap::new();
        if prefixes.is_empty() {
            return Ok(found);
        }
        let whole_tree = prefixes.iter().any(String::is_empty);
        let mut options = StatusOptions::new();
        options
            .include_untracked(true)
            .recurse_untracked_dirs(true)
            .include_ignored(true)
            .recurse_ignored_dirs(true)
            .exclude_submodules(true)
            .disable_pathspec_match(true);
        if !whole_tree {
            for prefix in &prefixes {
                options.pathspec(prefix);
            }
        }
        let statuses = self
            .repo
            .statuses(Some(&mut options))
            .map_err(|e| self.error("cannot read the status of the work tree", &e))?;
        for entry in statuses.iter() {
            let path = String::from_utf8_lossy(entry.path_bytes()).into_owned();
            if !prefixes.iter().any(|p| is_under(&path, p)) {
                continue;
            }
            let status = entry.status();
            // A folder reported whole, not file by file, is one git does not go into: a
            // repository of its own that is not a submodule. Its files are that
            // repository's, whose changes this one cannot see: `--write` edited a dirty one
            // and `--branch` committed one into this repository.
            if path.ends_with('/')
                && (status.contains(Status::IGNORED) || status.contains(Status::WT_NEW))
                && self.root.join(&path).join(".git").exists()
            {
                found.insert(
                    path,
                    "it is inside another git repository, which this one does not track (not a submodule): run catalog-effects in that repository",
                );
            } else if status.contains(Status::IGNORED) {
                found.insert(path, "git ignores it");
            } else if status.contains(Status::WT_NEW) {
                found.insert(path, "git does not track it (git add it first)");
            }
        }
        let index = self
            .repo
            .index()
            .map_err(|e| self.error("cannot read the index", &e))?;
        for entry in index.iter() {
            let why = if entry.flags_extended & SKIP_WORKTREE != 0 {
                "git's index marks it skip-worktree: its copy here may hold local edits git hides"
            } else if entry.flags & ASSUME_UNCHANGED != 0 {
                "git's index marks it assume-unchanged: its copy here may hold local edits git hides"
            } else {
                continue;
            };
            let path = String::from_utf8_lossy(&entry.path).into_owned();
            if prefixes.iter().any(|p| is_under(&path, p)) {
                found.insert(path, why);
            }
        }
        Ok(found)
    }

    /// Files (work-tree-relative) under `paths` that have uncommitted changes: modified in
    /// the index or the work tree vs HEAD, or untracked. Used to refuse `--write` on dirty
    /// files.
    ///
    /// Writing over such a file would mix the tool's edits with the user's, so deletions,
    /// conflicts and type changes count as dirty too; ignored files do not. Files inside a
    /// submodule are asked of the submodule's own repository (the parent only
    /// sees the submodule as one changed entry, and a dirty file in it was written without
    /// `--allow-dirty`). Paths outside the work tree contribute nothing.
    pub fn dirty_files(&self, paths: &[PathBuf]) -> Result<BTreeSet<String>> {
        let prefixes: Vec<String> = paths.iter().filter_map(|p| self.relative(p)).collect();
        let mut dirty = BTreeSet::new();
        self.dirty_under(&self.repo, "", &prefixes, &mut dirty, 0)?;
        Ok(dirty)
    }

    /// The dirty files of `repo` (mounted at `mount` in this work tree) under `prefixes`
    /// (relative to this work tree), submodules included.
    fn dirty_under(
        &self,
        repo: &Repository,
        mount: &str,
        prefixes: &[String],
        dirty: &mut BTreeSet<String>,
        depth: usize,
    ) -> Result<()> {
        let join = |path: &str| {
            if mount.is_empty() {
                path.to_owned()
            } else {
                format!("{mount}/{path}")
            }
        };
        // What of this repository the prefixes reach: the whole tree when one holds it.
        let inside: Vec<String> = prefixes
            .iter()
            .filter_map(|p| {
                if mount.is_empty() {
                    Some(p.clone())
                } else if is_under(mount, p) {
                    Some(String::new())
                } else {
                    p.strip_prefix(&format!("{mount}/")).map(str::to_owned)
                }
            })
            .collect();
        if inside.is_empty() {
            return Ok(());
        }
        let whole_tree = inside.iter().any(String::is_empty);
        let mut options = StatusOptions::new();
        options
            .include_untracked(true)
            .recurse_untracked_dirs(true)
            .include_ignored(false)
            .exclude_submodules(true)
            // Catalog file names are literal; a '*' or '[' in one must not turn into a glob.
            .disable_pathspec_match(true);
        if !whole_tree {
            for prefix in &inside {
                options.pathspec(prefix);
            }
        }
        let statuses = repo
            .statuses(Some(&mut options))
            .map_err(|e| self.error("cannot read the status of the work tree", &e))?;
        // Files a sparse checkout leaves out are marked skip-worktree and absent: git does
        // not call them changed, libgit2 calls them deleted (a sparse checkout was
        // refused as uncommitted changes). No route edits them (`untouchable`).
        let hidden = skip_worktree(repo);
        for entry in statuses.iter() {
            let status = entry.status();
            if status.is_empty() || status.contains(Status::IGNORED) {
                continue;
            }
            if hidden.contains(entry.path_bytes()) {
                continue;
            }
            let path = String::from_utf8_lossy(entry.path_bytes()).into_owned();
            // The pathspec already narrows the walk; this check keeps the contract exact
            // whatever libgit2's matching rules are.
            if whole_tree || inside.iter().any(|prefix| is_under(&path, prefix)) {
                dirty.insert(join(&path));
            }
        }
        // Nested submodules are followed a few levels down, no more: a cycle of gitlinks
        // is not possible, but a deep chain is not worth the time.
        if depth < 8 {
            for sm in repo.submodules().unwrap_or_default() {
                let sub = join(&String::from_utf8_lossy(
                    sm.path().as_os_str().as_encoded_bytes(),
                ));
                let wanted = prefixes
                    .iter()
                    .any(|p| is_under(&sub, p) || is_under(p, &sub));
                // An uninitialised submodule has no files to write.
                if let (true, Ok(inner)) = (wanted, sm.open()) {
                    self.dirty_under(&inner, &sub, prefixes, dirty, depth + 1)?;
                }
            }
        }
        Ok(())
    }

    /// Work-tree-relative paths of files changed between revision `rev` (any revspec: a
    /// sha, `HEAD~3`, a branch) and the work tree (including index changes and untracked
    /// files; deleted files excluded since they cannot be processed; renames give the new
    /// path). [`Repo::changes_since`] also gives the deleted ones.
    pub fn changed_since(&self, rev: &str) -> Result<BTreeSet<String>> {
        Ok(self.changes_since(rev)?.changed)
    }

    /// What changed between revision `rev` and the work tree: the files there now that
    /// differ, and the paths gone (deleted, or the old side of a rename).
    ///
    /// Rename detection is not needed: without it a rename is a deletion of the old path
    /// plus an addition of the new one, which is what a reader of the old path sees.
    pub fn changes_since(&self, rev: &str) -> Result<Changes> {
        let object = self
            .repo
            .revparse_single(rev)
            .map_err(|e| self.error(&format!("unknown revision '{rev}'"), &e))?;
        let tree = object.peel_to_tree().map_err(|e| {
            self.error(
                &format!("revision '{rev}' does not name a commit or tree"),
                &e,
            )
        })?;

        let mut options = DiffOptions::new();
        options
            .include_untracked(true)
            .recurse_untracked_dirs(true)
            .ignore_submodules(true);
        let diff = self
            .repo
            .diff_tree_to_workdir_with_index(Some(&tree), Some(&mut options))
            .map_err(|e| {
                self.error(
                    &format!("cannot compare revision '{rev}' with the work tree"),
                    &e,
                )
            })?;

        let mut changes = Changes::default();
        let path_of = |file: git2::DiffFile<'_>| {
            (file.mode() != FileMode::Commit)
                .then(|| file.path_bytes())
                .flatten()
                .map(|p| String::from_utf8_lossy(p).into_owned())
        };
        for delta in diff.deltas() {
            match delta.status() {
                git2::Delta::Unmodified | git2::Delta::Ignored | git2::Delta::Unreadable => {}
                git2::Delta::Deleted => changes.gone.extend(path_of(delta.old_file())),
                status => {
                    // A partial's main file renamed away leaves it orphaned: the old path
                    // is gone as much as a deleted one.
                    if status == git2::Delta::Renamed {
                        changes.gone.extend(path_of(delta.old_file()));
                    }
                    changes.changed.extend(path_of(delta.new_file()));
                }
            }
        }
        Ok(changes)
    }

    /// Short id and full id of HEAD, or None for a repository with no commits.
    pub fn head(&self) -> Option<(String, String)> {
        let commit = self.repo.head().ok()?.peel_to_commit().ok()?;
        let full = commit.id().to_string();
        let short = commit
            .as_object()
            .short_id()
            .ok()
            .and_then(|buf| buf.as_str().ok().map(str::to_owned))
            .unwrap_or_else(|| full.chars().take(7).collect());
        Some((short, full))
    }

    /// Checks, before any work is done, that `branch` can be written: a name git accepts
    /// and can be named by (not `@`, git's shorthand for HEAD), a repository with a
    /// commit, a branch that does not exist yet (unless `force`) and, even with `force`,
    /// one that no work tree has checked out: moving it would leave that work tree with a
    /// staged revert of the commit.
    pub fn check_branch(&self, branch: &str, force: bool) -> Result<()> {
        if branch == "@" || !git2::Branch::name_is_valid(branch).unwrap_or(false) {
            let why = if branch == "@" {
                "`@` means HEAD to git, so no command could name the branch"
            } else {
                "git does not accept it (`git check-ref-format --branch`)"
            };
            return Err(Error::new(format!("invalid branch name '{branch}': {why}"))
                .in_file(self.shown(&self.root)));
        }
        match self.repo.head() {
            Ok(_) => {}
            Err(e) if matches!(e.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound) => {
                return Err(Error::new(format!(
                    "repository has no commits; commit something first, then create branch '{branch}'"
                ))
                .in_file(self.shown(&self.root)));
            }
            Err(e) => return Err(self.error("cannot read HEAD", &e)),
        }
        let full_ref = format!("refs/heads/{branch}");
        if let Some(place) = self.checked_out(&full_ref) {
            return Err(Error::new(format!(
                "branch '{branch}' is checked out in {}; choose another branch name",
                place.display()
            ))
            .in_file(self.shown(&self.root)));
        }
        if !force && self.repo.find_branch(branch, BranchType::Local).is_ok() {
            return Err(self.branch_exists(branch));
        }
        Ok(())
    }

    /// The work tree (this one, the main one or any linked one) whose HEAD is `full_ref`.
    fn checked_out(&self, full_ref: &str) -> Option<PathBuf> {
        let common = self.repo.commondir();
        let head_of = |git_dir: &Path| {
            std::fs::read_to_string(git_dir.join("HEAD"))
                .ok()
                .is_some_and(|h| h.trim_end().strip_prefix("ref: ") == Some(full_ref))
        };
        // The HEAD of the repository as opened (its own work tree), then the main work
        // tree's and every linked one's, read where git keeps them, so a work tree whose
        // folder is gone still counts, as it does for git.
        if self
            .repo
            .head()
            .is_ok_and(|h| h.name_bytes() == full_ref.as_bytes())
        {
            return Some(self.root.clone());
        }
        if head_of(common) {
            let main = Repository::open(common).ok();
            let dir = main.and_then(|r| r.workdir().map(Path::to_path_buf));
            return Some(dir.unwrap_or_else(|| common.to_path_buf()));
        }
        let names = self.repo.worktrees().ok()?;
        for name in names.iter().filter_map(|n| n.ok().flatten()) {
            let git_dir = common.join("worktrees").join(name);
            if head_of(&git_dir) {
                let found = self.repo.find_worktree(name);
                return Some(found.map_or(git_dir, |w| w.path().to_path_buf()));
            }
        }
        None
    }

    /// Stores the new contents of work-tree-relative `path` as `git add` would: through
    /// the repository's filters and attributes (`core.autocrlf`, `text`, `eol`, `ident`),
    /// so a commit of a CRLF work tree differs from HEAD by the inserted lines only.
    /// A path whose `filter` driver is configured (LFS and the like) is refused: that
    /// is an external program, which libgit2 does not run, and skipping it would commit the
    /// wrong bytes. So is a path that HEAD holds as something other than a file, or inside
    /// a submodule.
    pub fn stage_blob(&self, path: &str, contents: &[u8]) -> Result<Blob> {
        self.stage(path, None, contents)
    }

    /// [`Repo::stage_blob`] for `contents` planned on the text `planned_on` (the file as the
    /// run read it), refused unless `planned_on` is what `git add` would make HEAD's blob
    /// of: the branch is HEAD plus the edits, so an edit saved into the file after the
    /// up-front check for uncommitted changes (or one that check cannot see) would
    /// otherwise reach the branch as if HEAD held it.
    pub fn stage_edit(&self, path: &str, planned_on: &[u8], contents: &[u8]) -> Result<Blob> {
        self.stage(path, Some(planned_on), contents)
    }

    fn stage(&self, path: &str, planned_on: Option<&[u8]>, contents: &[u8]) -> Result<Blob> {
        check_repo_path(path).map_err(|msg| Error::new(msg).in_file(self.shown(&self.root)))?;
        let (head, base) = self.head_tree(path)?;
        // What HEAD cannot take at this path is said first: it is the reason to give.
        let mode = self.mode_in(&base, path)?;
        if let Some(planned_on) = planned_on {
            let in_head = base.get_path(Path::new(path)).ok().map(|e| e.id());
            if in_head != Some(self.store(path, planned_on)?) {
                let what = if in_head.is_some() {
                    "differs from HEAD"
                } else {
                    "is not in HEAD"
                };
                return Err(Error::new(format!(
                    "{what}: changed since --branch found the catalog clean, so the branch would commit that change as HEAD's; commit or stash it, then run again"
                ))
                .in_file(self.shown(&self.root.join(path))));
            }
        }
        let id = self.store(path, contents)?;
        Ok(Blob {
            path: path.to_owned(),
            id,
            mode,
            head,
        })
    }

    /// The commit HEAD is, and its tree.
    fn head_tree(&self, path: &str) -> Result<(git2::Oid, git2::Tree<'_>)> {
        self.repo
            .head()
            .and_then(|h| h.peel_to_commit())
            .and_then(|c| Ok((c.id(), c.tree()?)))
            .map_err(|e| {
                Error::new(format!(
                    "cannot read the tree of HEAD: {}",
                    cause(e.message(), self.repo.path())
                ))
                .in_file(self.shown(&self.root.join(path)))
            })
    }

    /// Writes `contents` as the blob of `path`, through the filters `git add` applies.
    fn store(&self, path: &str, contents: &[u8]) -> Result<git2::Oid> {
        let err = |what: &str, e: &git2::Error| {
            Error::new(format!("{what}: {}", cause(e.message(), self.repo.path())))
                .in_file(self.shown(&self.root.join(path)))
        };
        let filter = self
            .repo
            .get_attr(
                Path::new(path),
                "filter",
                git2::AttrCheckFlags::FILE_THEN_INDEX,
            )
            .map_err(|e| err("cannot read its attributes", &e))?;
        // `git add` runs a driver only when one is configured; without, it is no filter.
        let configured = |driver: &str| {
            self.repo.config().is_ok_and(|c| {
                ["clean", "process"]
                    .iter()
                    .any(|k| c.get_string(&format!("filter.{driver}.{k}")).is_ok())
            })
        };
        if let Some(driver) = filter.filter(|f| configured(f)) {
            return Err(Error::new(format!(
                "has the filter `{driver}` (.gitattributes): --branch cannot run filter programs, so it cannot commit what `git add` would; apply the patch instead"
            ))
            .in_file(self.shown(&self.root.join(path))));
        }
        let mut writer = self
            .repo
            .blob_writer(Some(Path::new(path)))
            .map_err(|e| err("cannot store its contents", &e))?;
        std::io::Write::write_all(&mut writer, contents).map_err(|e| {
            Error::new(format!(
                "cannot store its contents: {}",
                cause(&e.to_string(), self.repo.path())
            ))
            .in_file(self.shown(&self.root.join(path)))
        })?;
        writer
            .commit()
            .map_err(|e| err("cannot store its contents", &e))
    }

    /// Write one commit on branch `branch` (checked with [`Repo::check_branch`]), whose
    /// parent is HEAD and whose tree is HEAD's tree with each staged blob in place. Does
    /// not touch the work tree, the index or the current branch (HEAD keeps pointing where
    /// it did). With `force` an existing branch is moved. Returns the new commit's full id.
    /// Author/committer: the repository's configured signature, falling back to
    /// "catalog-effects <catalog-effects@localhost>" when none is configured.
    ///
    /// The backfill is meant to be reviewed as a branch/PR while the user keeps working, so
    /// nothing the user is looking at may move: only objects and the one branch ref are
    /// written. A path staged twice takes its last contents.
    pub fn commit_on_branch(
        &self,
        branch: &str,
        blobs: &[Blob],
        message: &str,
        force: bool,
    ) -> Result<String> {
        self.check_branch(branch, force)?;
        let parent = self
            .repo
            .head()
            .and_then(|h| h.peel_to_commit())
            .map_err(|e| self.error("HEAD does not point to a commit", &e))?;
        // The blobs are edits of the files of the HEAD they were made on: on any other
        // parent, the branch would undo what the commits in between changed in them.
        if let Some(then) = blobs.iter().map(|b| b.head).find(|h| *h != parent.id()) {
            return Err(Error::new(format!(
                "HEAD moved while the run went on (from {then} to {}): the backfill was planned on the files of the first; run again",
                parent.id()
            ))
            .in_file(self.shown(&self.root)));
        }
        let base = parent
            .tree()
            .map_err(|e| self.error("cannot read the tree of HEAD", &e))?;
        let latest: BTreeMap<&str, &Blob> = blobs.iter().map(|b| (b.path.as_str(), b)).collect();
        let mut updates = TreeUpdateBuilder::new();
        for (path, blob) in &latest {
            updates.upsert(*path, blob.id, blob.mode);
        }
        let tree_id = updates
            .create_updated(&self.repo, &base)
            .map_err(|e| self.error("cannot build the new tree", &e))?;
        let tree = self
            .repo
            .find_tree(tree_id)
            .map_err(|e| self.error("cannot read back the new tree", &e))?;

        let signature = with_fallback(self.repo.signature())
            .map_err(|e| self.error("cannot determine the commit author", &e))?;
        let message = if message.ends_with('\n') {
            message.to_owned()
        } else {
            format!("{message}\n")
        };
        let commit_id = self
            .repo
            .commit(None, &signature, &signature, &message, &tree, &[&parent])
            .map_err(|e| {
                self.error(
                    &format!("cannot write the commit for branch '{branch}'"),
                    &e,
                )
            })?;
        let commit = self
            .repo
            .find_commit(commit_id)
            .map_err(|e| self.error("cannot read back the new commit", &e))?;
        match self.repo.branch(branch, &commit, force) {
            Ok(_) => Ok(commit_id.to_string()),
            Err(e) if e.code() == ErrorCode::Exists => Err(self.branch_exists(branch)),
            Err(e) => Err(self.error(&format!("cannot create branch '{branch}'"), &e)),
        }
    }

    /// The mode `path` gets in the new tree: HEAD's blob mode when it exists there, so an
    /// executable script stays executable.
    fn mode_in(&self, base: &git2::Tree<'_>, path: &str) -> Result<FileMode> {
        // A folder on the way that HEAD holds as a submodule (or a file) cannot take the
        // path: libgit2 only says "D/F conflict", naming nothing.
        let mut prefix = String::new();
        for part in path.split('/').take(path.matches('/').count()) {
            if !prefix.is_empty() {
                prefix.push('/');
            }
            prefix.push_str(part);
            if let Ok(entry) = base.get_path(Path::new(&prefix))
                && entry.filemode() != i32::from(FileMode::Tree)
            {
                let what = if entry.filemode() == i32::from(FileMode::Commit) {
                    "a submodule: commit the change in the submodule's own repository"
                } else {
                    "not a folder in HEAD"
                };
                return Err(
                    Error::new(format!("'{path}' is inside '{prefix}', which is {what}"))
                        .in_file(self.shown(&self.root)),
                );
            }
        }
        let entry = match base.get_path(Path::new(path)) {
            Ok(entry) => entry,
            Err(e) if e.code() == ErrorCode::NotFound => return Ok(FileMode::Blob),
            Err(e) => return Err(self.error(&format!("cannot look up '{path}' in HEAD"), &e)),
        };
        let mode = entry.filemode();
        if mode == i32::from(FileMode::BlobExecutable) {
            Ok(FileMode::BlobExecutable)
        } else if mode == i32::from(FileMode::Blob)
            || mode == i32::from(FileMode::BlobGroupWritable)
        {
            Ok(FileMode::Blob)
        } else {
            let kind = if mode == i32::from(FileMode::Link) {
                "a symlink"
            } else if mode == i32::from(FileMode::Tree) {
                "a directory"
            } else if mode == i32::from(FileMode::Commit) {
                "a submodule"
            } else {
                "not a regular file"
            };
            Err(Error::new(format!(
                "'{path}' is {kind} in HEAD; refusing to replace it with file contents"
            ))
            .in_file(self.shown(&self.root)))
        }
    }

    fn branch_exists(&self, branch: &str) -> Error {
        Error::new(format!(
            "branch '{branch}' already exists; choose another name or force to move it"
        ))
        .in_file(self.shown(&self.root))
    }

    fn error(&self, what: &str, e: &git2::Error) -> Error {
        Error::new(format!("{what}: {}", e.message())).in_file(self.shown(&self.root))
    }
}

/// An index entry's flag: assume-unchanged (`git update-index --assume-unchanged`).
const ASSUME_UNCHANGED: u16 = 0x8000;
/// An index entry's extended flag: skip-worktree (`--skip-worktree`, sparse checkouts).
const SKIP_WORKTREE: u16 = 0x4000;

/// The repository of `path`, as git finds it: `GIT_DIR` (with `GIT_WORK_TREE`) when set,
/// else the first one from `path` upward. A repository given by the environment was not
/// honoured: no dirty-file guard, and patch paths `git apply` rejects.
fn open(path: &Path) -> std::result::Result<Repository, git2::Error> {
    if std::env::var_os("GIT_DIR").is_none() {
        return Repository::discover(path);
    }
    let repo = Repository::open_from_env()?;
    if let Some(work_tree) = env_work_tree(&repo) {
        repo.set_workdir(&work_tree, false)?;
    }
    Ok(repo)
}

/// The work tree git uses for a repository named by `GIT_DIR`, where libgit2 takes
/// another: `GIT_WORK_TREE` relative to the current folder (libgit2 does not resolve it),
/// else, unless `core.worktree` names one or the repository is bare, the current folder
/// itself, as git documents. libgit2 took the folder above `GIT_DIR` instead, or none at
/// all: `--branch` found no work tree, the patch's paths did not apply at its root, and
/// `--write` edited a file with uncommitted changes.
fn env_work_tree(repo: &Repository) -> Option<PathBuf> {
    let cwd = std::env::current_dir().ok()?;
    if let Some(given) = std::env::var_os("GIT_WORK_TREE") {
        return Some(cwd.join(given));
    }
    let config = repo.config().ok()?;
    let named = config.get_path("core.worktree").is_ok();
    let bare = config.get_bool("core.bare").unwrap_or(false);
    (!named && !bare).then_some(cwd)
}

/// The paths the index of `repo` marks skip-worktree.
fn skip_worktree(repo: &Repository) -> BTreeSet<Vec<u8>> {
    repo.index()
        .map(|index| {
            index
                .iter()
                .filter(|e| e.flags_extended & SKIP_WORKTREE != 0)
                .map(|e| e.path)
                .collect()
        })
        .unwrap_or_default()
}

/// What failed, when libgit2 says only "no error" (it loses the system's reason,
/// on a full disk for one): a full file system under `git_dir` is named as such, else the system's
/// last error.
fn cause(message: &str, git_dir: &Path) -> String {
    let said = message.trim();
    if !said.is_empty() && !said.starts_with("no error") {
        return said.to_owned();
    }
    if full(git_dir) {
        return format!(
            "no space left on the device that holds {}",
            git_dir.display()
        );
    }
    let os = std::io::Error::last_os_error();
    match os.raw_os_error() {
        Some(code) if code != 0 => os.to_string(),
        _ => "the object store could not be written (libgit2 gave no reason)".to_owned(),
    }
}

/// Whether the file system holding `path` has no block left for this user.
fn full(path: &Path) -> bool {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::ffi::OsStrExt;
        let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
            return false;
        };
        // SAFETY: an all-zero statvfs is valid; statvfs fills it for a NUL-terminated path.
        let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
        (unsafe { libc::statvfs(c.as_ptr(), &mut st) }) == 0 && st.f_bavail == 0
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = path;
        false
    }
}

/// Why git refuses the repository that holds `path`, if it does: one another user owns,
/// which git trusts only once `safe.directory` names it (usual in CI containers). Taken for
/// "no repository", it made `--branch` say the catalog is in no work tree and the patch
/// take paths `git apply` rejects.
///
/// So is a `.git` file (a submodule's or a linked work tree's) whose `gitdir:` names no
/// repository: git stops there ("not a git repository"), but libgit2 found no repository,
/// and `--write` then had no dirty-file guard.
pub fn refused(path: &Path) -> Option<Error> {
    if let Some(e) = broken_git_file(path) {
        return Some(e);
    }
    match open(path) {
        Err(e) if e.code() == ErrorCode::Owner => Some(
            Error::new(format!(
                "git refuses the repository that holds it: {} (git trusts a repository another user owns only once `safe.directory` names it: `git config --global --add safe.directory <its folder>`)",
                e.message().trim_end_matches('.')
            ))
            .in_file(path),
        ),
        _ => None,
    }
}

/// The nearest `.git` above `path` (itself included) when it is a file that names no
/// repository openable by git, as an error naming that file and what it says.
fn broken_git_file(path: &Path) -> Option<Error> {
    // A repository named by the environment is found without looking at `.git` entries.
    if std::env::var_os("GIT_DIR").is_some() {
        return None;
    }
    let absolute = resolve(path)?;
    let dot_git = absolute
        .ancestors()
        .map(|folder| folder.join(".git"))
        .find(|candidate| candidate.symlink_metadata().is_ok())?;
    if dot_git.is_dir() {
        return None;
    }
    let text = std::fs::read_to_string(&dot_git).unwrap_or_default();
    let named = text
        .lines()
        .next()
        .and_then(|line| line.strip_prefix("gitdir:"))
        .map(str::trim)
        .filter(|named| !named.is_empty());
    let folder = dot_git.parent()?;
    let why = match named {
        Some(named) if Repository::open(folder.join(named)).is_ok() => return None,
        Some(named) => format!("its `gitdir: {named}` names no git directory"),
        None => "it holds no `gitdir:` line".to_owned(),
    };
    Some(
        Error::new(format!(
            "{why}, so git takes the folder for a broken repository: restore the repository it names, or remove the `.git` file if the folder is no longer one"
        ))
        .in_file(shown(&dot_git)),
    )
}

/// Absolute `path` relative to the current folder when below it (the folder itself is
/// `.`), else as it is.
fn shown(path: &Path) -> PathBuf {
    let below = std::env::current_dir()
        .ok()
        .and_then(|cwd| cwd.canonicalize().ok())
        .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf));
    match below {
        Some(rest) if rest.as_os_str().is_empty() => PathBuf::from("."),
        Some(rest) => rest,
        None => path.to_path_buf(),
    }
}

/// An unset identity is normal on fresh machines and must not block the backfill; any
/// other failure (a broken config file) is worth reporting.
fn with_fallback(
    configured: std::result::Result<Signature<'static>, git2::Error>,
) -> std::result::Result<Signature<'static>, git2::Error> {
    match configured {
        Err(e) if e.code() == ErrorCode::NotFound => Signature::now(FALLBACK_NAME, FALLBACK_EMAIL),
        other => other,
    }
}

/// `path` made absolute and canonical, except that a symlink to a file is kept as the link:
/// git tracks the link itself, so its status lives under the link's path, not the target's.
/// For paths that do not exist, the deepest existing ancestor is canonicalized and the rest
/// appended after lexical `.`/`..` resolution.
fn resolve(path: &Path) -> Option<PathBuf> {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().ok()?.join(path)
    };
    let link_to_file = absolute
        .symlink_metadata()
        .is_ok_and(|meta| meta.file_type().is_symlink())
        && !absolute.is_dir();
    if link_to_file
        && let (Some(parent), Some(name)) = (absolute.parent(), absolute.file_name())
        && let Ok(parent) = parent.canonicalize()
    {
        return Some(parent.join(name));
    }
    if let Ok(canonical) = absolute.canonicalize() {
        return Some(canonical);
    }
    let mut lexical = PathBuf::new();
    for component in absolute.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                lexical.pop();
            }
            other => lexical.push(other),
        }
    }
    let mut existing = lexical.as_path();
    let mut missing = Vec::new();
    loop {
        if let Ok(canonical) = existing.canonicalize() {
            let mut resolved = canonical;
            resolved.extend(missing.iter().rev());
            return Some(resolved);
        }
        missing.push(existing.file_name()?);
        existing = existing.parent()?;
    }
}

/// Whether work-tree-relative `path` is `prefix` itself or inside the directory `prefix`.
fn is_under(path: &str, prefix: &str) -> bool {
    prefix.is_empty()
        || path == prefix
        || (path.starts_with(prefix) && path.as_bytes().get(prefix.len()) == Some(&b'/'))
}

/// Why `path` (work-tree-relative) is in `untouchable`, itself or through a folder of it
/// that stands for its files.
pub fn left_alone(
    untouchable: &BTreeMap<String, &'static str>,
    path: &str,
) -> Option<&'static str> {
    if let Some(why) = untouchable.get(path) {
        return Some(why);
    }
    path.match_indices('/')
        .find_map(|(i, _)| untouchable.get(&path[..=i]))
        .copied()
}

/// Rejects paths that libgit2 would reject late (or, for NUL, that git2 panics on) and
/// paths that would write into `.git` or outside the tree.
fn check_repo_path(path: &str) -> std::result::Result<(), String> {
    if path.is_empty() {
        return Err("empty path in the files to commit".to_owned());
    }
    if path.contains('\0') {
        return Err(format!("path {path:?} contains a NUL byte"));
    }
    if path.starts_with('/') {
        return Err(format!(
            "path '{path}' must be relative to the work-tree root"
        ));
    }
    for part in path.split('/') {
        if part.is_empty() || part == "." || part == ".." || part.eq_ignore_ascii_case(".git") {
            return Err(format!(
                "path '{path}' is not a plain work-tree-relative file path"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    /// Stages then commits, as `backfill --branch` does.
    fn commit_files(
        repo: &Repo,
        branch: &str,
        files: &[(String, Vec<u8>)],
        message: &str,
        force: bool,
    ) -> Result<String> {
        repo.check_branch(branch, force)?;
        let blobs = files
            .iter()
            .map(|(p, b)| repo.stage_blob(p, b))
            .collect::<Result<Vec<_>>>()?;
        repo.commit_on_branch(branch, &blobs, message, force)
    }

    use super::*;
    use std::fs;
    use tempfile::TempDir;

    /// A fresh repository with its own identity, so tests do not depend on the machine's
    /// git configuration.
    fn init() -> (TempDir, Repository) {
        let dir = TempDir::new().expect("tempdir");
        let repo = Repository::init(dir.path()).expect("init");
        {
            let mut config = repo.config().expect("config");
            config.set_str("user.name", "Test User").expect("name");
            config
                .set_str("user.email", "test@example.com")
                .expect("email");
        }
        (dir, repo)
    }

    fn write(dir: &TempDir, rel: &str, contents: &str) {
        let path = dir.path().join(rel);
        fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        fs::write(path, contents).expect("write");
    }

    fn stage(repo: &Repository, rel: &str) {
        let mut index = repo.index().expect("index");
        index.add_path(Path::new(rel)).expect("add");
        index.write().expect("write index");
    }

    /// Stages every change (including deletions) and commits it on the current branch.
    fn commit_all(repo: &Repository, message: &str) -> git2::Oid {
        let mut index = repo.index().expect("index");
        index
            .add_all(["*"], git2::IndexAddOption::DEFAULT, None)
            .expect("add_all");
        index.update_all(["*"], None).expect("update_all");
        index.write().expect("write index");
        let tree = repo
            .find_tree(index.write_tree().expect("tree"))
            .expect("find tree");
        let sig = repo.signature().expect("signature");
        let parents = match repo.head() {
            Ok(head) => vec![head.peel_to_commit().expect("commit")],
            Err(_) => vec![],
        };
        let parents: Vec<&git2::Commit<'_>> = parents.iter().collect();
        repo.commit(Some("HEAD"), &sig, &sig, message, &tree, &parents)
            .expect("commit")
    }

    fn set(items: &[&str]) -> BTreeSet<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    fn open(dir: &TempDir) -> Repo {
        Repo::discover(dir.path()).expect("repo")
    }

    fn blob_at(repo: &Repository, tree: &git2::Tree<'_>, path: &str) -> (Vec<u8>, i32) {
        let entry = tree.get_path(Path::new(path)).expect("entry");
        let blob = repo.find_blob(entry.id()).expect("blob");
        (blob.content().to_vec(), entry.filemode())
    }

    fn index_snapshot(repo: &Repository) -> Vec<(Vec<u8>, git2::Oid, u32)> {
        let mut index = repo.index().expect("index");
        index.read(true).expect("read index");
        index.iter().map(|e| (e.path, e.id, e.mode)).collect()
    }

    #[test]
    fn discover_from_subdir_gives_canonical_root() {
        let (dir, repo) = init();
        write(&dir, "catalog/a/x.yaml", "x: 1\n");
        commit_all(&repo, "init");
        let found = Repo::discover(&dir.path().join("catalog/a")).expect("repo");
        assert_eq!(found.workdir(), dir.path().canonicalize().unwrap());
    }

    #[test]
    fn discover_outside_any_repo_is_none() {
        let dir = TempDir::new().unwrap();
        // Only meaningful when the temp dir itself is not inside some repository.
        if Repository::discover(dir.path()).is_err() {
            assert!(Repo::discover(dir.path()).is_none());
        }
    }

    #[test]
    fn discover_inside_git_dir_is_none() {
        let (dir, _git) = init();
        assert!(Repo::discover(&dir.path().join(".git")).is_none());
    }

    #[cfg(unix)]
    #[test]
    fn relative_keeps_a_file_symlink_as_the_link() {
        let (dir, _git) = init();
        write(&dir, "catalog/real.yaml", "x: 1\n");
        std::os::unix::fs::symlink("real.yaml", dir.path().join("catalog/link.yaml")).unwrap();
        std::os::unix::fs::symlink("catalog", dir.path().join("alias")).unwrap();
        let repo = open(&dir);
        assert_eq!(
            repo.relative(&dir.path().join("catalog/link.yaml"))
                .as_deref(),
            Some("catalog/link.yaml")
        );
        // A symlinked directory resolves to where the files really are.
        assert_eq!(
            repo.relative(&dir.path().join("alias/real.yaml"))
                .as_deref(),
            Some("catalog/real.yaml")
        );
    }

    #[test]
    fn discover_bare_repo_is_none() {
        let dir = TempDir::new().unwrap();
        Repository::init_bare(dir.path()).unwrap();
        assert!(Repo::discover(dir.path()).is_none());
    }

    #[test]
    fn relative_paths() {
        let (dir, _repo) = init();
        write(&dir, "catalog/a/x.yaml", "x: 1\n");
        let repo = open(&dir);
        let root = dir.path();
        assert_eq!(repo.relative(root).as_deref(), Some(""));
        assert_eq!(
            repo.relative(&root.join("catalog/a/x.yaml")).as_deref(),
            Some("catalog/a/x.yaml")
        );
        assert_eq!(
            repo.relative(&root.join("catalog/./a/../a/x.yaml"))
                .as_deref(),
            Some("catalog/a/x.yaml")
        );
        assert_eq!(
            repo.relative(&root.join("catalog/new/y.yaml")).as_deref(),
            Some("catalog/new/y.yaml")
        );
        assert_eq!(repo.relative(&root.join("..")), None);
        assert_eq!(repo.relative(Path::new("/")), None);

        // Relative to the current directory, whatever it is.
        let cwd = std::env::current_dir().unwrap().canonicalize().unwrap();
        let mut from_cwd = PathBuf::new();
        for _ in cwd.components().skip(1) {
            from_cwd.push("..");
        }
        let target = root.canonicalize().unwrap().join("catalog/a/x.yaml");
        from_cwd.push(target.strip_prefix("/").unwrap());
        assert_eq!(
            repo.relative(&from_cwd).as_deref(),
            Some("catalog/a/x.yaml")
        );
    }

    #[test]
    fn dirty_files_modified_staged_untracked_and_clean() {
        let (dir, git) = init();
        for name in ["clean", "modified", "staged", "deleted"] {
            write(&dir, &format!("catalog/{name}.yaml"), "a: 1\n");
        }
        write(&dir, "other/outside.yaml", "a: 1\n");
        commit_all(&git, "init");
        let repo = open(&dir);
        let catalog = vec![dir.path().join("catalog")];
        assert_eq!(repo.dirty_files(&catalog).unwrap(), set(&[]));

        write(&dir, "catalog/modified.yaml", "a: 2\n");
        write(&dir, "catalog/staged.yaml", "a: 2\n");
        stage(&git, "catalog/staged.yaml");
        write(&dir, "catalog/new/untracked.yaml", "a: 1\n");
        fs::remove_file(dir.path().join("catalog/deleted.yaml")).unwrap();
        write(&dir, "other/outside.yaml", "a: 2\n");
        write(&dir, "catalog-sibling.yaml", "a: 1\n");

        assert_eq!(
            repo.dirty_files(&catalog).unwrap(),
            set(&[
                "catalog/deleted.yaml",
                "catalog/modified.yaml",
                "catalog/new/untracked.yaml",
                "catalog/staged.yaml",
            ])
        );
        // Individual files, and a path outside the repository which contributes nothing.
        let picked = vec![
            dir.path().join("catalog/clean.yaml"),
            dir.path().join("catalog/staged.yaml"),
            PathBuf::from("/"),
        ];
        assert_eq!(
            repo.dirty_files(&picked).unwrap(),
            set(&["catalog/staged.yaml"])
        );
        // The whole tree.
        assert_eq!(
            repo.dirty_files(&[dir.path().to_path_buf()]).unwrap().len(),
            6
        );
        assert!(repo.dirty_files(&[]).unwrap().is_empty());
    }

    #[test]
    fn dirty_files_ignores_gitignored() {
        let (dir, git) = init();
        write(&dir, ".gitignore", "*.tmp\n");
        write(&dir, "catalog/a.yaml", "a: 1\n");
        commit_all(&git, "init");
        write(&dir, "catalog/scratch.tmp", "junk\n");
        let repo = open(&dir);
        assert!(
            repo.dirty_files(&[dir.path().join("catalog")])
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn changed_since_lists_exactly_the_changed_files() {
        let (dir, git) = init();
        for name in ["a", "b", "c", "d"] {
            write(&dir, &format!("catalog/{name}.yaml"), "v: 1\n");
        }
        let base = commit_all(&git, "base");
        write(&dir, "catalog/a.yaml", "v: 2\n");
        commit_all(&git, "second");

        write(&dir, "catalog/b.yaml", "v: 2\n"); // modified, unstaged
        write(&dir, "catalog/e.yaml", "v: 1\n"); // added, staged
        stage(&git, "catalog/e.yaml");
        write(&dir, "catalog/sub/f.yaml", "v: 1\n"); // untracked in a new directory
        fs::remove_file(dir.path().join("catalog/c.yaml")).unwrap(); // deleted

        let repo = open(&dir);
        let expected = set(&[
            "catalog/a.yaml",
            "catalog/b.yaml",
            "catalog/e.yaml",
            "catalog/sub/f.yaml",
        ]);
        assert_eq!(repo.changed_since(&base.to_string()).unwrap(), expected);
        assert_eq!(repo.changed_since("HEAD~1").unwrap(), expected);
        assert_eq!(
            repo.changed_since("HEAD").unwrap(),
            set(&["catalog/b.yaml", "catalog/e.yaml", "catalog/sub/f.yaml"])
        );
        let branch = git.head().unwrap().shorthand().unwrap().to_owned();
        assert_eq!(repo.changed_since(&branch).unwrap().len(), 3);
        // The deleted file is not among them, but is among the paths gone.
        let changes = repo.changes_since("HEAD").unwrap();
        assert_eq!(changes.gone, set(&["catalog/c.yaml"]));
    }

    #[test]
    fn changed_since_rename_gives_new_path() {
        let (dir, git) = init();
        write(&dir, "catalog/old.yaml", "v: 1\nw: 2\n");
        commit_all(&git, "base");
        fs::rename(
            dir.path().join("catalog/old.yaml"),
            dir.path().join("catalog/new.yaml"),
        )
        .unwrap();
        let repo = open(&dir);
        assert_eq!(
            repo.changed_since("HEAD").unwrap(),
            set(&["catalog/new.yaml"])
        );
        // Also once the rename is staged.
        commit_all(&git, "rename");
        assert_eq!(
            repo.changed_since("HEAD~1").unwrap(),
            set(&["catalog/new.yaml"])
        );
    }

    #[test]
    fn changed_since_unknown_revision_names_it() {
        let (dir, git) = init();
        write(&dir, "a.yaml", "v: 1\n");
        commit_all(&git, "base");
        let repo = open(&dir);
        let err = repo.changed_since("no-such-branch").unwrap_err();
        assert!(err.message.contains("no-such-branch"), "{err}");
        assert_eq!(err.path.as_deref(), Some(repo.workdir()));
    }

    #[test]
    fn head_ids() {
        let (dir, git) = init();
        let repo = open(&dir);
        assert_eq!(repo.head(), None);
        write(&dir, "a.yaml", "v: 1\n");
        let id = commit_all(&git, "base");
        let (short, full) = repo.head().expect("head");
        assert_eq!(full, id.to_string());
        assert!(full.starts_with(&short) && short.len() >= 7 && short.len() < full.len());
    }

    #[test]
    fn commit_on_branch_replaces_files_and_touches_nothing_else() {
        let (dir, git) = init();
        write(&dir, "catalog/a.yaml", "a: 1\n");
        write(&dir, "catalog/b.yaml", "b: 1\n");
        write(&dir, "README.md", "readme\n");
        let head_id = commit_all(&git, "base");
        // A dirty work tree and index, which must survive untouched.
        write(&dir, "catalog/a.yaml", "a: 1\n# local edit\n");
        write(&dir, "README.md", "readme staged\n");
        stage(&git, "README.md");
        let head_ref = git.head().unwrap().name().unwrap().to_owned();
        let index_before = index_snapshot(&git);

        let repo = open(&dir);
        let id = commit_files(
            &repo,
            "effects/backfill",
            &[(
                "catalog/a.yaml".to_owned(),
                b"a: 1\neffects: [read]\n".to_vec(),
            )],
            "Backfill effects",
            false,
        )
        .unwrap();

        let commit = git.find_commit(git2::Oid::from_str(&id).unwrap()).unwrap();
        assert_eq!(commit.parent_ids().collect::<Vec<_>>(), vec![head_id]);
        assert_eq!(commit.message(), Ok("Backfill effects\n"));
        assert_eq!(commit.author().name(), Ok("Test User"));
        assert_eq!(commit.committer().email(), Ok("test@example.com"));
        let tree = commit.tree().unwrap();
        let base = git.find_commit(head_id).unwrap().tree().unwrap();
        assert_eq!(tree.len(), base.len());
        assert_eq!(
            blob_at(&git, &tree, "catalog/a.yaml").0,
            b"a: 1\neffects: [read]\n"
        );
        assert_eq!(
            blob_at(&git, &tree, "catalog/b.yaml"),
            blob_at(&git, &base, "catalog/b.yaml")
        );
        assert_eq!(
            blob_at(&git, &tree, "README.md"),
            blob_at(&git, &base, "README.md")
        );

        let branch = git
            .find_branch("effects/backfill", BranchType::Local)
            .unwrap();
        assert_eq!(branch.get().target(), Some(commit.id()));
        let head = git.head().unwrap();
        assert_eq!(head.name(), Ok(head_ref.as_str()));
        assert_eq!(head.target(), Some(head_id));
        assert_eq!(index_snapshot(&git), index_before);
        assert_eq!(
            fs::read_to_string(dir.path().join("catalog/a.yaml")).unwrap(),
            "a: 1\n# local edit\n"
        );
    }

    #[test]
    fn commit_on_branch_nested_and_new_paths() {
        let (dir, git) = init();
        write(&dir, "catalog/vendor/deep/a.yaml", "a: 1\n");
        write(&dir, "catalog/vendor/other.yaml", "o: 1\n");
        let head_id = commit_all(&git, "base");
        let repo = open(&dir);
        let files = vec![
            ("catalog/vendor/deep/a.yaml".to_owned(), b"a: 2\n".to_vec()),
            ("catalog/brand/new/x.yaml".to_owned(), b"x: 1\n".to_vec()),
        ];
        let id = commit_files(&repo, "nested", &files, "msg", false).unwrap();
        let tree = git
            .find_commit(git2::Oid::from_str(&id).unwrap())
            .unwrap()
            .tree()
            .unwrap();
        let base = git.find_commit(head_id).unwrap().tree().unwrap();
        assert_eq!(
            blob_at(&git, &tree, "catalog/vendor/deep/a.yaml"),
            (b"a: 2\n".to_vec(), 0o100644)
        );
        assert_eq!(
            blob_at(&git, &tree, "catalog/brand/new/x.yaml"),
            (b"x: 1\n".to_vec(), 0o100644)
        );
        assert_eq!(
            blob_at(&git, &tree, "catalog/vendor/other.yaml"),
            blob_at(&git, &base, "catalog/vendor/other.yaml")
        );
        assert!(!dir.path().join("catalog/brand").exists());
    }

    #[cfg(unix)]
    #[test]
    fn commit_on_branch_keeps_executable_bit() {
        use std::os::unix::fs::PermissionsExt;
        let (dir, git) = init();
        write(&dir, "tools/run.sh", "#!/bin/sh\n");
        write(&dir, "tools/plain.yaml", "p: 1\n");
        let script = dir.path().join("tools/run.sh");
        fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
        let head_id = commit_all(&git, "base");
        let base = git.find_commit(head_id).unwrap().tree().unwrap();
        assert_eq!(blob_at(&git, &base, "tools/run.sh").1, 0o100755);

        let repo = open(&dir);
        let files = vec![
            ("tools/run.sh".to_owned(), b"#!/bin/sh\necho hi\n".to_vec()),
            ("tools/plain.yaml".to_owned(), b"p: 2\n".to_vec()),
        ];
        let id = commit_files(&repo, "exec", &files, "msg", false).unwrap();
        let tree = git
            .find_commit(git2::Oid::from_str(&id).unwrap())
            .unwrap()
            .tree()
            .unwrap();
        assert_eq!(blob_at(&git, &tree, "tools/run.sh").1, 0o100755);
        assert_eq!(blob_at(&git, &tree, "tools/plain.yaml").1, 0o100644);
    }

    #[test]
    fn commit_on_branch_existing_branch_needs_force() {
        let (dir, git) = init();
        write(&dir, "a.yaml", "a: 1\n");
        commit_all(&git, "base");
        let repo = open(&dir);
        let files = vec![("a.yaml".to_owned(), b"a: 2\n".to_vec())];
        let first = commit_files(&repo, "backfill", &files, "one", false).unwrap();
        let err = commit_files(&repo, "backfill", &files, "two", false).unwrap_err();
        assert!(err.message.contains("'backfill' already exists"), "{err}");
        let target = |git: &Repository| {
            git.find_branch("backfill", BranchType::Local)
                .unwrap()
                .get()
                .target()
                .unwrap()
        };
        assert_eq!(target(&git).to_string(), first);

        let second = commit_files(&repo, "backfill", &files, "two", true).unwrap();
        assert_ne!(first, second);
        assert_eq!(target(&git).to_string(), second);
    }

    #[test]
    fn commit_on_branch_refuses_the_checked_out_branch() {
        let (dir, git) = init();
        write(&dir, "a.yaml", "a: 1\n");
        let head_id = commit_all(&git, "base");
        let current = git.head().unwrap().shorthand().unwrap().to_owned();
        let repo = open(&dir);
        let files = vec![("a.yaml".to_owned(), b"a: 2\n".to_vec())];
        let err = commit_files(&repo, &current, &files, "msg", true).unwrap_err();
        assert!(err.message.contains(&current), "{err}");
        assert_eq!(git.head().unwrap().target(), Some(head_id));
    }

    #[test]
    fn commit_on_branch_refuses_repository_without_commits() {
        let (dir, _git) = init();
        write(&dir, "a.yaml", "a: 1\n");
        let repo = open(&dir);
        let files = vec![("a.yaml".to_owned(), b"a: 2\n".to_vec())];
        let err = commit_files(&repo, "backfill", &files, "msg", false).unwrap_err();
        assert!(
            err.message
                .contains("has no commits; commit something first"),
            "{err}"
        );
        assert_eq!(err.path.as_deref(), Some(repo.workdir()));
    }

    #[test]
    fn commit_on_branch_refuses_invalid_names_and_paths() {
        let (dir, git) = init();
        write(&dir, "a.yaml", "a: 1\n");
        commit_all(&git, "base");
        let repo = open(&dir);
        let files = vec![("a.yaml".to_owned(), b"a: 2\n".to_vec())];
        for bad in ["", "a..b", "has space", "ends/", "-dash", "x.lock", "HEAD"] {
            let err = commit_files(&repo, bad, &files, "msg", false).unwrap_err();
            assert!(err.message.contains("invalid branch name"), "{bad}: {err}");
        }
        for bad in [
            "",
            "/abs.yaml",
            "../up.yaml",
            "a/./b.yaml",
            "a//b.yaml",
            ".git/config",
            "nul\0.yaml",
        ] {
            let files = vec![(bad.to_owned(), b"x".to_vec())];
            assert!(
                commit_files(&repo, "ok", &files, "msg", false).is_err(),
                "{bad:?}"
            );
        }
        // A file used as a directory.
        let files = vec![("a.yaml/inner.yaml".to_owned(), b"x".to_vec())];
        assert!(commit_files(&repo, "ok", &files, "msg", false).is_err());
        assert!(git.find_branch("ok", BranchType::Local).is_err());
    }

    #[test]
    fn signature_falls_back_when_identity_missing() {
        let missing = git2::Error::new(
            ErrorCode::NotFound,
            git2::ErrorClass::Config,
            "no user.name",
        );
        let sig = with_fallback(Err(missing)).unwrap();
        assert_eq!(sig.name(), Ok(FALLBACK_NAME));
        assert_eq!(sig.email(), Ok(FALLBACK_EMAIL));
        let broken = git2::Error::new(ErrorCode::GenericError, git2::ErrorClass::Config, "bad");
        assert!(with_fallback(Err(broken)).is_err());
        let configured = Signature::now("Someone", "someone@example.com").unwrap();
        assert_eq!(with_fallback(Ok(configured)).unwrap().name(), Ok("Someone"));
    }
}
