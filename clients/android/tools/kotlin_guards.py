"""What a line of Kotlin is guarded for: the `if (SDK_INT >= N)` blocks, `else` branches, early
returns and `@RequiresApi` functions around it, and whether it sits inside `try` or `runCatching`.
A brace-level reading of the source with comments and strings blanked out, not a parser: a guard
written another way (a `when`, a helper function) is not seen, and the call is then reported, which
errs on the side of a false alarm. Used by api_guard.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

Level = tuple[int, int]

# android.os.Build.VERSION_CODES and VERSION_CODES_FULL, as AOSP's android.txt (36.1) declares them.
VERSION_CODES = {
    "M": 23, "N": 24, "N_MR1": 25, "O": 26, "O_MR1": 27, "P": 28, "Q": 29, "R": 30, "S": 31,
    "S_V2": 32, "TIRAMISU": 33, "UPSIDE_DOWN_CAKE": 34, "VANILLA_ICE_CREAM": 35, "BAKLAVA": 36,
}
VERSION_CODES_FULL = {"BAKLAVA": 3600000, "BAKLAVA_1": 3600001}


def blank_comments_and_strings(text: str) -> str:
    """The source with comments and string literals replaced by spaces (newlines kept), so braces and
    names found later are code."""
    out = list(text)
    i, n = 0, len(text)

    def blank(start: int, end: int) -> None:
        for k in range(start, min(end, n)):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            blank(i, end)
            i = end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            blank(i, end)
            i = end
        elif text.startswith('"""', i):
            end = text.find('"""', i + 3)
            end = n if end < 0 else end + 3
            blank(i, end)
            i = end
        elif text[i] == '"':
            j = i + 1
            depth = 0
            while j < n:
                if text[j] == "\\":
                    j += 2
                    continue
                if text.startswith("${", j):
                    depth += 1
                    j += 2
                    continue
                if text[j] == "}" and depth:
                    depth -= 1
                elif text[j] == '"' and not depth:
                    break
                j += 1
            blank(i, j + 1)
            i = j + 1
        elif text[i] == "'" and re.match(r"'(\\.|[^\\'])'", text[i:i + 4]):
            end = text.find("'", i + 1 + (text[i + 1] == "\\"))
            blank(i, end + 1)
            i = end + 1
        else:
            i += 1
    return "".join(out)


@dataclass
class Block:
    open: int
    close: int
    header: str


class Source:
    def __init__(self, path: str):
        self.path = path
        self.raw = open(path, encoding="utf-8").read()
        self.code = blank_comments_and_strings(self.raw)
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", self.code)]
        self.blocks: list[Block] = []
        stack: list[tuple[int, str]] = []
        boundary = -1
        for i, char in enumerate(self.code):
            if char == "{":
                stack.append((i, self.code[boundary + 1:i]))
                boundary = i
            elif char == "}":
                if stack:
                    start, header = stack.pop()
                    self.blocks.append(Block(start, i, header))
                boundary = i
            elif char == ";":
                boundary = i
        self.requires_api = {
            match.group(2): (resolve_level(match.group(1)) or (0, 0))
            for match in re.finditer(r"@RequiresApi\(\s*(?:api\s*=\s*)?([^)]*)\)(?:\s*@\w+(?:\([^)]*\))?)*"
                                     r"(?:\s*(?:private|internal|public|protected|inline|override))*\s*fun\s+(\w+)",
                                     self.code)}

    def position(self, line: int, name: str) -> int:
        start = self.line_starts[line - 1] if 0 < line <= len(self.line_starts) else 0
        end = self.line_starts[line] if line < len(self.line_starts) else len(self.code)
        found = re.search(r"\b" + re.escape(name) + r"\b", self.code[start:end])
        return start + (found.start() if found else 0)

    def line_text(self, line: int) -> str:
        start = self.line_starts[line - 1]
        end = self.line_starts[line] if line < len(self.line_starts) else len(self.code)
        return self.code[start:end]

    def enclosing(self, position: int) -> list[Block]:
        return sorted((b for b in self.blocks if b.open < position < b.close), key=lambda b: -b.open)

    def guard(self, position: int, line: int, name: str) -> Level:
        """The highest API level the code at `position` is known to run on."""
        best: Level = (0, 0)
        blocks = self.enclosing(position)
        for block in blocks:
            best = max(best, self.block_guard(block))
        function = next((b for b in blocks if re.search(r"\bfun\b", b.header)), None)
        if function:
            for match in re.finditer(r"\bif\s*\(", self.code[function.open:position]):
                at = function.open + match.start()
                condition, after = balanced(self.code, at + match.end() - match.start() - 1)
                if re.match(r"\s*return\b", self.code[after:]) and self.depth(at) == self.depth(function.open) + 1:
                    best = max(best, negated_guard(condition))
        text = self.line_text(line)
        at = text.find(name)
        for match in re.finditer(r"([^&|()]+?)&&", text):
            if at < 0 or match.end() <= at:
                best = max(best, positive_guard(match.group(1)))
        return best

    def depth(self, position: int) -> int:
        return sum(1 for b in self.blocks if b.open < position < b.close) + 1

    def block_guard(self, block: Block) -> Level:
        header = block.header.strip()
        annotation = re.search(r"@RequiresApi\(\s*(?:api\s*=\s*)?([^)]*)\)", header)
        if annotation and re.search(r"\bfun\b", header):
            return resolve_level(annotation.group(1)) or (0, 0)
        if re.match(r"(?s).*\bif\s*\(", header) and not header.startswith("else"):
            start = header.rfind("if")
            condition, _ = balanced(header, header.index("(", start))
            return positive_guard(condition)
        if header.startswith("else"):
            closing = block.open - len(block.header) + block.header.find("else") - 1
            closing = self.code.rfind("}", 0, closing + 1)
            previous = next((b for b in self.blocks if b.close == closing), None)
            if previous and re.search(r"\bif\s*\(", previous.header):
                start = previous.header.rfind("if")
                condition, _ = balanced(previous.header, previous.header.index("(", start))
                return negated_guard(condition)
        return (0, 0)

    def trapped(self, position: int) -> bool:
        for block in self.enclosing(position):
            if re.search(r"\btry\s*$|\brunCatching\s*$", block.header.strip()):
                return True
            if re.search(r"\bfun\b", block.header):
                return False
        return False


def balanced(text: str, open_paren: int) -> tuple[str, int]:
    depth = 0
    for i in range(open_paren, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return text[open_paren + 1:i], i + 1
    return text[open_paren + 1:], len(text)


def resolve_level(expression: str) -> Level | None:
    expression = expression.strip()
    if re.fullmatch(r"\d+", expression):
        return int(expression), 0
    code = re.fullmatch(r"(?:Build\.)?(?:VERSION_CODES\.)(\w+)", expression)
    if code and code.group(1) in VERSION_CODES:
        return VERSION_CODES[code.group(1)], 0
    full = re.fullmatch(r"(?:Build\.)?VERSION_CODES_FULL\.(\w+)", expression)
    if full and full.group(1) in VERSION_CODES_FULL:
        value = VERSION_CODES_FULL[full.group(1)]
        return value // 100000, value % 100000
    if re.fullmatch(r"\d{7}", expression):
        return int(expression) // 100000, int(expression) % 100000
    return None


COMPARISON = re.compile(r"(?:Build\.VERSION\.)?(SDK_INT_FULL|SDK_INT)\s*(>=|>|<|<=)\s*([\w.]+)")


def comparison(conjunct: str) -> tuple[str, str, Level] | None:
    match = COMPARISON.search(conjunct)
    if not match:
        return None
    level = resolve_level(match.group(3))
    if level is None:
        return None
    if match.group(1) == "SDK_INT_FULL" and not re.search(r"VERSION_CODES_FULL|\d{7}", match.group(3)):
        return None
    return match.group(1), match.group(2), level


def positive_guard(condition: str) -> Level:
    """The level a true `condition` proves: the best of its `&&` conjuncts (an `||` proves nothing)."""
    if "||" in condition:
        return (0, 0)
    best: Level = (0, 0)
    for conjunct in condition.split("&&"):
        found = comparison(conjunct)
        if found and found[1] in (">=", ">"):
            level = found[2]
            if found[1] == ">":
                level = (level[0] + 1, 0) if found[0] == "SDK_INT" else (level[0], level[1] + 1)
            best = max(best, level)
    return best


def negated_guard(condition: str) -> Level:
    """The level a false `condition` proves (the code after `if (SDK_INT < 36) return`)."""
    found = comparison(condition)
    if found and found[1] == "<" and "&&" not in condition and "||" not in condition:
        return found[2]
    return (0, 0)


