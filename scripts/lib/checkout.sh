# shellcheck shell=bash
# Sourced by the scripts that compare two revisions side by side
# (bench-check.sh, bench-first-serve.sh): one way to put a side into its own
# folder, so that both benchmarks build what the same revision names.

# checkout REPO REV DIR: puts revision REV of the git repository REPO into
# folder DIR and prints what it is. REV is a git revision, or `worktree` for
# REPO's working tree as it is (tracked and untracked files that git does not
# ignore; tracked files deleted in the working tree are left out).
checkout() {
  local repo=$1 rev=$2 dir=$3
  if [ "$rev" = worktree ]; then
    mkdir -p "$dir"
    (cd "$repo" && git ls-files -z --cached --others --exclude-standard | tar --null --ignore-failed-read -T - -cf - 2>/dev/null) \
      | tar -xf - -C "$dir"
    echo "working tree of $(git -C "$repo" rev-parse --short HEAD) ($(git -C "$repo" status --porcelain | wc -l) changed paths)"
  else
    local sha
    sha=$(git -C "$repo" rev-parse --verify "$rev^{commit}")
    git clone -q --no-checkout "$repo" "$dir"
    git -C "$dir" checkout -q "$sha"
    git -C "$dir" log -1 --format='%h %s'
  fi
}
