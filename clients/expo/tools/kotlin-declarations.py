#!/usr/bin/env python3
"""Lists the declarations of Kotlin look-alikes from their source, one per line (annotations,
modifiers, signature; comments and bodies dropped), so a change shows in review as a change to
the committed list. Reflection over the compiled classes cannot do this for Kotlin: inline
functions with reified type parameters, the heart of Expo's DSL, leave no public method behind.

    kotlin-declarations.py <out file> <source dir>
"""

import os
import re
import sys

DECLARATION = re.compile(
    r"^(?:@[\w.]+(?:\([^)]*\))?\s+)*(?:(?:public|internal|private|protected|open|abstract|final|inline|override|"
    r"data|enum|sealed|companion|operator|infix|suspend|const|lateinit)\s+)*(?:class|interface|object|fun|val|var|typealias)\b")


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def declarations(path: str) -> list[str]:
    code = strip_comments(open(path, encoding="utf-8").read())
    package = re.search(r"^package\s+([\w.]+)", code, re.M)
    found, depth, i, annotations = [], 0, 0, []
    while i < len(code):
        line_end = code.find("\n", i)
        line_end = len(code) if line_end < 0 else line_end
        line = code[i:line_end].strip()
        if line.startswith("@file:"):
            i = line_end + 1
            continue
        if re.fullmatch(r"(@[\w.]+(\([^)]*\))?\s*)+", line):
            annotations.append(line)
        elif DECLARATION.match(line):
            # The signature runs to the first `{` or `=` outside parentheses, possibly over lines.
            j, parens = i, 0
            while j < len(code):
                c = code[j]
                if c in "(<[":
                    parens += 1
                elif c in ")>]" and not (c == ">" and code[j - 1] == "-"):
                    parens -= 1
                elif parens == 0 and (c == "{" or (c == "=" and code[j + 1] != ">")):
                    break
                elif parens == 0 and c == "\n" and not code[j + 1:].lstrip().startswith((":", ".")) \
                        and not code[i:j].rstrip().endswith((",", ":", "(")):
                    break
                j += 1
            signature = " ".join(annotations + code[i:j].split())
            found.append("  " * depth + signature.replace("( ", "(").replace(" )", ")"))
            annotations = []
        elif line:
            annotations = []
        depth += line.count("{") - line.count("}")
        i = line_end + 1
    return [f"package {package.group(1) if package else ''}  ({os.path.basename(path)})"] + ["  " + d for d in found]


def main() -> int:
    out, root = sys.argv[1], sys.argv[2]
    lines = []
    for directory, _, files in sorted(os.walk(root)):
        for file in sorted(files):
            if file.endswith(".kt"):
                lines += declarations(os.path.join(directory, file))
    open(out, "w", encoding="utf-8").write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
