# bash completion for attnviz and attnviz-cli (installed as completions/attnviz and completions/attnviz-cli).
# Needs nothing from the bash-completion package. attnviz-cli's commands and options come from its own --help,
# so they never drift; attnviz's are listed here (its --help reads the settings first) and
# tests/install/completion_test.sh checks that the list covers `attnviz --help`.

# Completes the value of option $1 (the word before the cursor). Returns 1 when $1 takes no value we know of.
_attnviz_value() {
  local prev=$1 cur=$2 cmd=$3
  case $prev in
    --text-file|--out|--plot|--figure|--screenshot|--widgets-json|--snapshot-path)
      compopt -o filenames 2>/dev/null
      COMPREPLY=($(compgen -f -- "$cur")) ;;
    --weights|--dump|--shader-dir|--model)
      compopt -o filenames 2>/dev/null
      COMPREPLY=($(compgen -d -- "$cur"))
      # --model also takes a .gguf file, and the app's "tiny", the bundled model.
      [ "$prev" = --model ] && COMPREPLY+=($(compgen -f -X '!*.[gG][gG][uU][fF]' -- "$cur"))
      [ "$prev" = --model ] && [ "$cmd" = app ] && COMPREPLY+=($(compgen -W "tiny" -- "$cur")) ;;
    --mask) COMPREPLY=($(compgen -W "none causal" -- "$cur")) ;;
    --qkv) COMPREPLY=($(compgen -W "fused separate" -- "$cur")) ;;
    --query-from|--key-from|--value-from) COMPREPLY=($(compgen -W "embedding length position onehot" -- "$cur")) ;;
    --lang) COMPREPLY=($(compgen -W "en ko" -- "$cur")) ;;
    --lesson) COMPREPLY=($(compgen -W "a b c d e f g" -- "$cur")) ;;
    --score) COMPREPLY=($(compgen -W "scaled-dot dot additive cosine neg-distance" -- "$cur")) ;;
    --format) COMPREPLY=($(compgen -W "png svg csv npy json" -- "$cur")) ;;
    --colormap) COMPREPLY=($(compgen -W "viridis magma cividis gray" -- "$cur")) ;;
    --color-scale) COMPREPLY=($(compgen -W "linear log" -- "$cur")) ;;
    --range) COMPREPLY=($(compgen -W "fixed auto" -- "$cur")) ;;
    --ablate-mode) COMPREPLY=($(compgen -W "zero mean" -- "$cur")) ;;
    --pool) COMPREPLY=($(compgen -W "auto" -- "$cur")) ;;
    --pool-mode) COMPREPLY=($(compgen -W "max mean" -- "$cur")) ;;
    --heads) [ "$cmd" = export ] && COMPREPLY=($(compgen -W "all" -- "$cur")) ;;
    --text|--query-text|--line|--d-model|--dk|--dv|--temperature|--softcap|--seed|--seeds|--dks|--random-tokens|--head|\
    --cell-size|--width|--title|--frames|--bench-frames|--layers|--layer|\
    --predict|--ablate|--neuron|--logit-lens)
      COMPREPLY=() ;;
    *) return 1 ;;
  esac
  return 0
}

# Options (words starting with -), else sentence files and model folders.
_attnviz_words() {
  local cur=$1 options=$2
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$options" -- "$cur"))
  else
    compopt -o filenames 2>/dev/null
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}

_attnviz_cli() {
  local program=$1 cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
  COMPREPLY=()
  if ((COMP_CWORD == 1)); then
    # The commands are the indented words under "commands:"; the options, the indented --words.
    local usage words
    usage=$("$program" --help 2>/dev/null)
    words="$(sed -n '/^commands:/,/^[^ ]/s/^  \([a-z][a-z-]*\) .*/\1/p' <<<"$usage") --help"
    words+=" $(sed -n 's/^  \(--[a-z][a-z-]*\).*/\1/p' <<<"$usage")"
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
    return 0
  fi
  local cmd=${COMP_WORDS[1]}
  _attnviz_value "$prev" "$cur" "$cmd" && return 0
  _attnviz_words "$cur" "$("$program" "$cmd" --help 2>/dev/null | grep -o -- '--[a-z][a-z-]*' | sort -u)"
}

_attnviz_app() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
  COMPREPLY=()
  _attnviz_value "$prev" "$cur" app && return 0
  _attnviz_words "$cur" "--text --text-file --samples --line --query-text --d-model --heads --dk --dv --no-scale
    --scale --temperature --qk-norm --softcap --mask --seed --no-positional --qkv --query-from --key-from --value-from --score
    --weights --lang --lesson --help --model --shader-dir --screenshot
    --frames --widgets-json --snapshot-path --bench-frames --no-settings --print-paths --version"
}

complete -F _attnviz_cli attnviz-cli
complete -F _attnviz_app attnviz
