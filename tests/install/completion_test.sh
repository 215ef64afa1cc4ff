#!/usr/bin/env bash
# bash completion for the installed attnviz and attnviz-cli (PREFIX/share/bash-completion/completions):
# the commands, every option each program's --help lists, option values, files after a file option.
#   bash tests/install/completion_test.sh PREFIX
set -u
prefix=$1
fail=0
completions=$prefix/share/bash-completion/completions
# bash-completion loads completions/<command> on demand; each file must work on its own.
source "$completions/attnviz-cli" || { echo "cannot source $completions/attnviz-cli"; exit 1; }
source "$completions/attnviz" || { echo "cannot source $completions/attnviz"; exit 1; }

# complete LINE: the candidates for the last word of LINE (a trailing space starts a new, empty word).
complete_line() {
  local line=$1
  read -ra COMP_WORDS <<<"$line"
  [[ $line == *" " ]] && COMP_WORDS+=("")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMP_LINE=$line
  COMP_POINT=${#line}
  COMPREPLY=()
  local fn
  fn=$(complete -p "${COMP_WORDS[0]}" | sed -n 's/.*-F \([^ ]*\) .*/\1/p')
  "$fn" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
  printf '%s\n' "${COMPREPLY[@]}" | sort
}

expect() {  # expect LINE WORD...: each WORD is among the candidates
  local line=$1 got
  shift
  got=$(complete_line "$line")
  for w in "$@"; do
    if ! grep -qxF -- "$w" <<<"$got"; then
      echo "FAIL: '$line<TAB>' does not offer '$w' (got: $(echo $got))"
      fail=1
    fi
  done
}

expect_exactly() {  # expect_exactly LINE "WORDS": the candidates are exactly WORDS
  local line=$1 want got
  want=$(tr ' ' '\n' <<<"$2" | sed '/^$/d' | sort)
  got=$(complete_line "$line" | sed '/^$/d')
  if [ "$got" != "$want" ]; then
    echo "FAIL: '$line<TAB>' offers '$(echo $got)', expected '$(echo $want)'"
    fail=1
  fi
}

cli=$prefix/bin/attnviz-cli
PATH=$prefix/bin:$PATH  # the completion runs `attnviz-cli CMD --help`: the installed one
commands=$("$cli" --help | sed -n '/^commands:/,/^[^ ]/s/^  \([a-z][a-z-]*\) .*/\1/p')
[ -n "$commands" ] || { echo "FAIL: attnviz-cli --help lists no commands"; exit 1; }
expect_exactly "attnviz-cli " "$commands --help --lang --print-paths --version"
expect_exactly "attnviz-cli co" "compute"
expect_exactly "attnviz-cli compute --mask " "none causal"
expect_exactly "attnviz-cli export --colormap " "viridis magma cividis gray"
expect_exactly "attnviz-cli export --heads " "all"
expect_exactly "attnviz-cli compute --dk " ""
expect_exactly "attnviz-cli compute --d" "--d-model --dk --dump --dv"

# Files: after --text-file, and as a plain argument (a sentence file or a model folder).
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/tiny" && touch "$work/sentences.txt" "$work/tiny/config.json"
expect "attnviz-cli compute --text-file $work/sen" "$work/sentences.txt"
expect "attnviz-cli compute $work/" "$work/sentences.txt" "$work/tiny"
expect "attnviz $work/t" "$work/tiny"
expect "attnviz --model " "tiny"
expect_exactly "attnviz-cli compute --dump $work/" "$work/tiny"

# Every option in each command's --help is offered after the command.
for cmd in $commands; do
  options=$("$cli" "$cmd" --help | grep -o -- '--[a-z][a-z-]*' | sort -u)
  [ -n "$options" ] || { echo "FAIL: attnviz-cli $cmd --help lists no options"; fail=1; }
  expect "attnviz-cli $cmd -" $options
done
for cmd in compute sweep export; do
  grep -qxF "$cmd" <<<"$commands" || { echo "FAIL: attnviz-cli --help does not list $cmd"; fail=1; }
done
app_options=$(XDG_CONFIG_HOME=$work "$prefix/bin/attnviz" --help | grep -o -- '--[a-z][a-z-]*' | sort -u)
[ -n "$app_options" ] || { echo "FAIL: attnviz --help lists no options"; fail=1; }
expect "attnviz -" $app_options

[ $fail -eq 0 ] && echo "completion: all checks passed"
exit $fail
