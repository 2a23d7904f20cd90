#!/usr/bin/env bash
# Keep a cached cargo target directory from filling the disk: in each profile's `deps`, of the
# executables (test binaries) sharing a name, only the newest is kept, and incremental caches are
# removed. Nothing a current build uses is touched: cargo links a test binary anew when its
# sources change and never reads the older copies. Prints what it freed.
set -euo pipefail
target="${1:?usage: prune-target.sh TARGET_DIR}"
[ -d "$target" ] || exit 0
python3 - "$target" <<'PY'
import collections, os, shutil, sys

target = sys.argv[1]
freed = 0
for profile in ("debug", "release"):
    incremental = os.path.join(target, profile, "incremental")
    if os.path.isdir(incremental):
        for root, _, files in os.walk(incremental):
            freed += sum(os.path.getsize(os.path.join(root, f)) for f in files)
        shutil.rmtree(incremental, ignore_errors=True)
    deps = os.path.join(target, profile, "deps")
    if not os.path.isdir(deps):
        continue
    by_name = collections.defaultdict(list)
    for entry in os.scandir(deps):
        # Test binaries: executables without an extension, named `<crate>-<hash>`.
        if entry.is_file() and "." not in entry.name and "-" in entry.name and os.access(entry.path, os.X_OK):
            by_name[entry.name.rsplit("-", 1)[0]].append((entry.stat().st_mtime, entry.path))
    for copies in by_name.values():
        for _, stale in sorted(copies)[:-1]:
            freed += os.path.getsize(stale)
            os.remove(stale)
            if os.path.exists(stale + ".d"):
                os.remove(stale + ".d")
print(f"prune-target: freed {freed / 2**30:.1f} GiB in {target}", file=sys.stderr)
PY
