#!/usr/bin/env python3
"""Fails when an import points up a crate's layers, when a crate's modules
import each other in a circle, when a source file is over 600 lines without
saying why, or when a document that grows with every change is over its
bound: docs/benchmarks.md over 300 lines, a CHANGELOG.md entry over two lines
of at most 100 characters.

    python3 scripts/check-layers.py               # check the workspace
    python3 scripts/check-layers.py --graph       # also print each crate's layers
    python3 scripts/check-layers.py --root DIR    # check the workspace at DIR

The crates are the members of the workspace's Cargo.toml. Each crate's
modules form layers whose imports only point down, so that a reader can
start at the top and never be sent back up. The layers are listed once, in
the `# Layers` section of the crate root's opening `//!` comment: numbered
lines, top layer first, each naming its top-level modules in backticks
before the first colon (`crate` is the root file itself). Every top-level
module must be in the list, and a file's module may import only from its own
layer or one below; each import that points up is printed with its file and
line and the two modules' layers. CONTRIBUTING.md's "Where things live"
table gives each folder's layer, and must agree with the lists.

The check reads each crate's `src/` (build.rs and the tests are not modules
of a crate): a file is one node, and an arrow goes from a file to every file
whose module it names, in a `use` declaration or in a path written out in
the code (`crate::a::b`, `super::c`, `self::d`, a child module's name after
`mod d;`, or a name that a `use` or a glob import such as `use crate::*`
brings into scope). A path to an item that a module re-exports (`pub use`)
counts as a path to the module that defines it. Comments and string
literals are skipped, and `super` inside an inline `mod tests { … }` counts
as the file itself.

A cycle of arrows is reported with the lines that draw each of its arrows,
so that whoever breaks it can see which import to move.

A source file may be over 600 lines only where one concern needs it; it then
says so in its opening `//!` comment, in a sentence containing "600 lines".

No crate in the registries does this for three crates at once without a
nightly toolchain or a build of the whole workspace (cargo-modules runs
rust-analyzer's analysis, minutes on this project's machines); this script
reads the sources in well under a second.
"""

import re
import sys
from pathlib import Path

MAX_LINES = 600
LAYERS_HEADING = "# Layers"
LAYER_FORMAT = 'numbered lines, top layer first: "1. `module`, `module`: what it holds"'
# A document that grows with every change, with the most lines it may have
# and what to do when it reaches them.
DOC_LIMITS = {"docs/benchmarks.md": (300, "replace a superseded measurement rather than add beside it")}
# The changelog grows a section per release, so its bound is per entry.
CHANGELOG = "CHANGELOG.md"
ENTRY_LINES = 2
LINE_WIDTH = 100


def strip_comments_and_strings(text):
    """Returns text with comments and string/char literals blanked out,
    keeping every newline so that line numbers stay right."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
            continue
        if text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append("\n" * text.count("\n", i, j))
            i = j
            continue
        m = re.match(r'b?r(#*)"', text[i:i + 260]) if c in "rb" and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")) else None
        if m:
            end = '"' + m.group(1)
            j = text.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
            continue
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j += 1
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
            continue
        if c == "'":
            m = re.match(r"'(\\.[^']*|[^\\'])'", text[i:i + 12])
            if m:
                out.append("' '")
                i += m.end()
                continue
        out.append(c)
        i += 1
    return "".join(out)


def expand_use_tree(tree):
    """`a::{b, c::{d, e}, f::*}` -> ['a::b', 'a::c::d', 'a::c::e', 'a::f::*']
    (a rename is kept as the path before it)."""
    tree = re.sub(r"\s+as\s+\w+", "", tree)
    tree = re.sub(r"\s+", "", tree)
    depth, start = 0, None
    for k, ch in enumerate(tree):
        if ch == "{":
            if depth == 0:
                start = k
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                prefix = tree[:start]
                inner = tree[start + 1:k]
                parts, d, last = [], 0, 0
                for q, ch2 in enumerate(inner):
                    if ch2 == "{":
                        d += 1
                    elif ch2 == "}":
                        d -= 1
                    elif ch2 == "," and d == 0:
                        parts.append(inner[last:q])
                        last = q + 1
                parts.append(inner[last:])
                paths = []
                for p in parts:
                    if not p:
                        continue
                    if p == "self":
                        paths.append(prefix.rstrip(":"))
                    else:
                        paths.extend(expand_use_tree(prefix + p))
                return paths
    return [tree.rstrip(":")]


class Crate:
    def __init__(self, root_dir):
        self.src = root_dir / "src"
        self.files = {}  # module path tuple -> Path
        for p in sorted(self.src.rglob("*.rs")):
            rel = p.relative_to(self.src).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "mod":
                parts.pop()
            if parts in (["lib"], ["main"]):
                if parts == ["main"] and (self.src / "lib.rs").exists():
                    continue  # a binary on top of the library, outside its graph
                parts = []
            if len(parts) == 1 and parts[0] == "main":
                continue
            self.files[tuple(parts)] = p
        self.texts = {m: strip_comments_and_strings(p.read_text()) for m, p in self.files.items()}
        self.reexports = {m: self._pub_uses(m) for m in self.files}

    def name(self, module):
        return str(self.files[module].relative_to(self.src.parent.parent))

    def _uses(self, module):
        """(line, path, is_pub, inline depth, is_glob) of each path a `use`
        in a file names; a glob's path is the module it empties (`a` of
        `a::*`)."""
        text = self.texts[module]
        for m in re.finditer(r"(?m)^\s*(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", text):
            line = text.count("\n", 0, m.start(2)) + 1
            for path in expand_use_tree(m.group(2)):
                glob = path.endswith("*")
                path = path.rstrip("*").rstrip(":")
                yield line, path, bool(m.group(1)), self._inline_depth(text, m.start()), glob

    def _pub_uses(self, module):
        return self._named_uses(module, pub_only=True)

    def _named_uses(self, module, pub_only):
        """{name: absolute path} of what a file's top-level `use`s bring into
        its scope (`[None]` for a path outside the crate)."""
        out = {}
        for _line, path, is_pub, depth, glob in self._uses(module):
            if (is_pub or not pub_only) and depth == 0 and not glob:
                segs = path.split("::")
                out[segs[-1]] = (self.absolute(module, segs, 0) or [None])
        return out

    def glob_names(self, target):
        """{name: absolute path} of the modules and imports that `use
        target::*` brings into scope: target's child modules and what its
        `use`s name (a private `use` too, as the crate root's is seen by
        every module below it)."""
        names = {c: list(target) + [c] for c in self.children(target)}
        for name, path in self._named_uses(target, pub_only=False).items():
            if path[0] is not None:
                names.setdefault(name, path)
        return names

    @staticmethod
    def _inline_depth(text, pos):
        """How many inline `mod x { … }` blocks enclose pos."""
        depth, stack = 0, []
        for m in re.finditer(r"\bmod\s+\w+\s*\{|\{|\}", text[:pos]):
            tok = m.group(0)
            if tok == "}":
                if stack and stack.pop():
                    depth -= 1
            elif tok.startswith("mod"):
                stack.append(True)
                depth += 1
            else:
                stack.append(False)
        return depth

    def children(self, module):
        return {m[-1] for m in self.files if len(m) == len(module) + 1 and m[:len(module)] == module}

    def absolute(self, module, segs, inline_depth):
        """The absolute module path a written path starts from, or None
        where it names something outside the crate."""
        head = segs[0]
        if head == "crate":
            return list(segs[1:])
        if head == "self":
            return list(module) + list(segs[1:]) if inline_depth == 0 else None
        if head == "super":
            ups = 0
            while ups < len(segs) and segs[ups] == "super":
                ups += 1
            ups -= inline_depth
            if ups <= 0:
                return None  # `super` of an inline module: the file itself
            if ups > len(module):
                return None
            return list(module[:len(module) - ups]) + list(segs[ups + inline_depth:])
        if head in self.children(module):
            return list(module) + list(segs)
        return None

    def resolve(self, absolute, seen=0):
        """The file that defines what an absolute path names."""
        best = ()
        for k in range(len(absolute), -1, -1):
            if tuple(absolute[:k]) in self.files:
                best = tuple(absolute[:k])
                rest = absolute[k:]
                break
        if rest and seen < 8:
            target = self.reexports.get(best, {}).get(rest[0])
            if target and target[0] is not None:
                return self.resolve(list(target) + list(rest[1:]), seen + 1)
        return best

    def edges(self):
        """{(from, to): [(line, import text), …]} between different files."""
        out = {}
        for module, text in self.texts.items():
            refs = []
            aliases = {}  # a name a `use` brings into scope -> its absolute path
            globbed = {}  # the same for the names a glob brings in
            for line, path, _pub, depth, glob in self._uses(module):
                segs = path.split("::")
                refs.append((line, segs, depth, path + ("::*" if glob else "")))
                absolute = self.absolute(module, segs, depth)
                if absolute is None:
                    continue
                if glob:
                    target = self.resolve(absolute)
                    if list(target) == absolute:  # a module, not an enum's variants
                        globbed.update(self.glob_names(target))
                elif depth == 0 and segs[-1] not in ("self", "super", "crate"):
                    aliases[segs[-1]] = absolute
            # A name a `use` imports itself wins over one a glob brings in.
            aliases = {**globbed, **aliases}
            use_spans = [m.span() for m in re.finditer(r"(?m)^\s*(pub(?:\([^)]*\))?\s+)?use\s+[^;]+;", text)]
            kids = self.children(module)
            heads = ["crate", "super", "self"] + sorted(kids | set(aliases))
            pattern = r"(?<![\w:])((?:%s)(?:::\w+)+)" % "|".join(map(re.escape, heads))
            for m in re.finditer(pattern, text):
                if any(a <= m.start() < b for a, b in use_spans):
                    continue
                if re.match(r"\s*mod\s*$", text[max(0, m.start() - 8):m.start()]):
                    continue
                line = text.count("\n", 0, m.start()) + 1
                refs.append((line, m.group(1).split("::"), self._inline_depth(text, m.start()), m.group(1)))
            for line, segs, depth, written in refs:
                if segs[0] in aliases and segs[0] not in kids:
                    absolute = aliases[segs[0]] + segs[1:]
                else:
                    absolute = self.absolute(module, segs, depth)
                if absolute is None:
                    continue
                target = self.resolve(absolute)
                if target != module:
                    out.setdefault((module, target), []).append((line, written))
        return out


def strongly_connected(nodes, edges):
    """Tarjan's algorithm, iteratively."""
    graph = {n: [] for n in nodes}
    for a, b in edges:
        graph[a].append(b)
    index, low, on, stack, comps, counter = {}, {}, set(), [], [], [0]
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == node:
                            break
                    comps.append(comp)
            elif nxt not in index:
                index[nxt] = low[nxt] = counter[0]
                counter[0] += 1
                stack.append(nxt)
                on.add(nxt)
                work.append((nxt, iter(graph[nxt])))
            elif nxt in on:
                low[node] = min(low[node], index[nxt])
    return comps


def file_depths(nodes, edges):
    """Depth of each file above the bottom of its crate's graph (--graph)."""
    below = {n: {b for (a, b) in edges if a == n} for n in nodes}
    depth = {}

    def d(n):
        if n not in depth:
            depth[n] = 0
            depth[n] = 1 + max((d(b) for b in below[n]), default=-1)
        return depth[n]

    for n in nodes:
        d(n)
    return depth


LAYER_ITEM = re.compile(r"^(\d+)\.\s+(.*)$")


def read_layer_list(crate, problems):
    """{top-level module or "crate": layer} from the `# Layers` section of the
    crate root's opening `//!` comment: numbered lines, top layer first,
    each naming its modules in backticks before the first colon. Adds to
    problems where the list is missing or malformed."""
    root = crate.files[()]
    where = crate.name(())
    doc = []
    for line in root.read_text().splitlines():
        if not line.startswith("//!"):
            break
        doc.append(line[3:].strip())
    if LAYERS_HEADING not in doc:
        problems.append(f"{where}: its opening //! comment has no `{LAYERS_HEADING}` section ({LAYER_FORMAT})")
        return {}
    items = []  # (number, text of the item, continuation lines joined)
    for text in doc[doc.index(LAYERS_HEADING) + 1:]:
        if text.startswith("#"):
            break
        m = LAYER_ITEM.match(text)
        if m:
            items.append([int(m.group(1)), m.group(2)])
        elif text and items:
            items[-1][1] += " " + text
        elif not text and items:
            break
    ranks = {}
    expected = 1
    for number, text in items:
        if number != expected:
            problems.append(f"{where}: layer {number} of `{LAYERS_HEADING}` comes where layer {expected} should")
        expected = number + 1
        names = re.findall(r"`(\w+)`", text.split(":", 1)[0])
        if not names:
            problems.append(f"{where}: layer {number} of `{LAYERS_HEADING}` names no module ({LAYER_FORMAT})")
        for name in names:
            if name in ranks:
                problems.append(f"{where}: `{name}` is in layer {ranks[name]} and in layer {number}")
            ranks.setdefault(name, number)
    return ranks


def check_layers(crate, ranks, edges, problems):
    """Every top-level module has a layer, and no import points up."""
    where = crate.name(())
    tops = {m[0] for m in crate.files if m} | {"crate"}
    for name in sorted(tops - set(ranks)):
        file = "the crate root" if name == "crate" else crate.name(min(m for m in crate.files if m and m[0] == name))
        problems.append(f"{where}: `{LAYERS_HEADING}` leaves out `{name}` ({file}); place it in a layer")
    for name in sorted(set(ranks) - tops):
        problems.append(f"{where}: `{LAYERS_HEADING}` names `{name}`, which is not a module of the crate")
    found = []
    for (a, b), refs in edges.items():
        top_a, top_b = top_of(a), top_of(b)
        if top_a not in ranks or top_b not in ranks or ranks[top_b] >= ranks[top_a]:
            continue
        for line, written in sorted(set(refs)):
            found.append((crate.name(a), line, written, top_a, top_b))
    for file, line, written, top_a, top_b in sorted(found):
        problems.append(
            f"{file}:{line}: `{written}` points up: {top_a} (layer {ranks[top_a]}) "
            f"imports from {top_b} (layer {ranks[top_b]}); the layers are listed in {where}"
        )


def top_of(module):
    return module[0] if module else "crate"


def check_contributing(path, crates, problems):
    """CONTRIBUTING.md's "Where things live" table gives each folder's layer
    as a number; every module a row names must be in that layer of its
    crate's list. (The table says what each folder holds; the crate roots
    hold the order, so the two cannot drift apart.)"""
    for number, line in enumerate(path.read_text().splitlines(), 1):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cells) < 2:
            continue
        paths = re.findall(r"`([^`]+)`", cells[0])
        if not paths or not re.match(r"^[\w-]+/src/", paths[0]):
            continue
        crate_name = paths[0].split("/")[0]
        if not crates.get(crate_name, (None, None))[1]:
            continue  # no list to compare with: reported above
        crate, ranks = crates[crate_name]
        layer = cells[1]
        for written in paths:
            rel = written[len(crate_name) + len("/src/"):] if written.startswith(crate_name + "/src/") else written
            name = rel.strip("/").split("/")[0].removesuffix(".rs")
            if name == "":
                continue  # the whole crate
            name = "crate" if name in ("lib", "main") and rel in ("lib.rs", "main.rs") else name
            if name not in ranks:
                problems.append(f"{path.name}:{number}: `{written}` is not a module in {crate.name(())}'s `{LAYERS_HEADING}`")
            elif layer != str(ranks[name]):
                problems.append(
                    f"{path.name}:{number}: the table puts `{written}` in layer {layer}, "
                    f"the `{LAYERS_HEADING}` of {crate.name(())} in layer {ranks[name]}"
                )


def check_lengths(repo, problems):
    for rel, (limit, why) in DOC_LIMITS.items():
        path = repo / rel
        if path.exists():
            count = path.read_text().count("\n")
            if count > limit:
                problems.append(f"{rel}: {count} lines, over its bound of {limit}; {why}")
    path = repo / CHANGELOG
    if not path.exists():
        return
    start, lines = None, 0
    for number, line in enumerate(path.read_text().splitlines() + [""], 1):
        if len(line) > LINE_WIDTH:
            problems.append(f"{CHANGELOG}:{number}: {len(line)} characters, over {LINE_WIDTH}; wrap the line")
        if line.startswith("  ") and start is not None:
            lines += 1
            continue
        if start is not None and lines > ENTRY_LINES:
            problems.append(f"{CHANGELOG}:{start}: an entry of {lines} lines, over {ENTRY_LINES}; say it in a line or two and leave the details to the docs")
        start, lines = (number, 1) if line.startswith("- ") else (None, 0)


def workspace_members(repo):
    text = (repo / "Cargo.toml").read_text()
    m = re.search(r"(?ms)^members\s*=\s*\[(.*?)\]", text)
    return re.findall(r'"([^"]+)"', m.group(1)) if m else []


def main(argv):
    repo = Path(__file__).resolve().parent.parent
    if "--root" in argv:
        repo = Path(argv[argv.index("--root") + 1]).resolve()
    show_graph = "--graph" in argv
    problems = []
    crates = {}
    for crate_name in workspace_members(repo):
        crate = Crate(repo / crate_name)
        edges = crate.edges()
        nodes = list(crate.files)
        ranks = read_layer_list(crate, problems)
        crates[crate_name] = (crate, ranks)
        for comp in strongly_connected(nodes, edges):
            if len(comp) < 2:
                continue
            names = sorted(crate.name(m) for m in comp)
            problems.append(f"{crate_name}: a module circle of {len(comp)} files: {', '.join(names)}")
            for (a, b), refs in sorted(edges.items(), key=lambda e: (crate.name(e[0][0]), crate.name(e[0][1]))):
                if a in comp and b in comp:
                    where = ", ".join(str(x) for x in sorted({line for line, _ in refs})[:6])
                    problems.append(f"  {crate.name(a)} -> {crate.name(b)} (line {where})")
        if ranks:
            check_layers(crate, ranks, edges, problems)
        for module, path in crate.files.items():
            count = path.read_text().count("\n")
            if count > MAX_LINES:
                opening = "\n".join(l for l in path.read_text().splitlines()[:40] if l.startswith("//!"))
                if "600 lines" not in opening:
                    problems.append(f"{crate.name(module)}: {count} lines, over {MAX_LINES}, and its opening //! comment does not say why (a sentence containing \"600 lines\")")
        if show_graph:
            print(f"{crate_name}: layers, top first (from {crate.name(())})")
            for rank in sorted(set(ranks.values())):
                print(f"  {rank}. " + ", ".join(sorted(n for n in ranks if ranks[n] == rank)))
            depth = file_depths(nodes, edges)
            print(f"{crate_name}: files by depth in the import graph, top first")
            for level in sorted(set(depth.values()), reverse=True):
                print(f"  {level}: " + ", ".join(sorted(crate.name(m) for m in nodes if depth[m] == level)))
    if (repo / "CONTRIBUTING.md").exists():
        check_contributing(repo / "CONTRIBUTING.md", crates, problems)
    check_lengths(repo, problems)
    for line in problems:
        print(line)
    sys.stdout.flush()
    failures = sum(1 for line in problems if not line.startswith("  "))
    if failures:
        print(f"check-layers: {failures} problem(s)", file=sys.stderr)
        return 1
    print("check-layers: every import points down its crate's layers; no source file over 600 lines without a reason; the docs within their bounds")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
