# shellcheck shell=bash
# What the device scripts share: how they refuse. Sourced, not run.
#   exit 2: the arguments are wrong (the usage is printed);
#   exit 3: a tool the step needs is not on this machine (named, with where it comes from);
#   exit 1: the step ran and failed, or a check found a problem.

# Prints the calling script's usage (its header comment, without the leading '# ') and exits 2.
usage() {
  [ $# -eq 0 ] || echo "$(basename "$0"): $*" >&2
  sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0" >&2
  exit 2
}

# need TOOL WHERE: refuses unless TOOL is on PATH; WHERE says how to get it.
need() {
  command -v "$1" > /dev/null 2>&1 && return 0
  echo "$(basename "$0"): needs '$1', which is not on this machine: $2" >&2
  exit 3
}

# One value of an option, or the usage when it is missing.
value() {
  [ $# -ge 2 ] && [ -n "$2" ] || usage "$1 needs a value"
  printf '%s' "$2"
}
