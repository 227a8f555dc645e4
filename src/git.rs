//! Git awareness: work-tree root, dirty files, files changed since a revision, and a
//! backfill commit written on a branch without touching the work tree.
