# bash completion for parfilter-<backend>: ops and chains from the executable's own --list,
# options from its --help (and the op's), and the values of the options that take few.
# Installed as share/bash-completion/completions/parfilter-<backend>.
_parfilter() {
  local exe="${COMP_WORDS[0]}" cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD - 1]}"
  case "$prev" in
    --border) mapfile -t COMPREPLY < <(compgen -W "replicate reflect101 constant constant:0" -- "$cur"); return ;;
    --output) mapfile -t COMPREPLY < <(compgen -W "magnitude l1 dx dy" -- "$cur"); return ;;
    --se) mapfile -t COMPREPLY < <(compgen -W "rect:3x3 cross:3x3 ellipse:5x5" -- "$cur"); return ;;
    --format) mapfile -t COMPREPLY < <(compgen -W "png bmp jpg jpeg tga csv" -- "$cur"); return ;;
    --files-on) mapfile -t COMPREPLY < <(compgen -W "root every-rank" -- "$cur"); return ;;
    --node-backend) mapfile -t COMPREPLY < <(compgen -W "serial pthread openmp cuda opencl" -- "$cur"); return ;;
    --out-dir) mapfile -t COMPREPLY < <(compgen -d -- "$cur"); return ;;
    --variant|--sigma|--iterations|--window|--min-contrast|--threads|--repeat|--png-level|\
    --jpeg-quality|--max-image-bytes|--max-memory|--strip-rows|--tiff-level|--device|--platform) return ;;
  esac
  local ops
  ops="$("$exe" --list 2>/dev/null | awk 'NR > 2 { print $1 }')"
  if [[ $COMP_CWORD -eq 1 && "$cur" != -* ]]; then
    # An op, or the next op of a chain after a comma.
    local done="${cur%,*}" op
    if [[ "$cur" == *,* ]]; then
      COMPREPLY=()
      for op in $ops; do [[ "$op" == "${cur##*,}"* ]] && COMPREPLY+=("$done,$op"); done
    else
      mapfile -t COMPREPLY < <(compgen -W "$ops" -- "$cur")
    fi
    return
  fi
  if [[ "$cur" == -* ]]; then
    local options
    options="$("$exe" "${COMP_WORDS[1]%%,*}" --help 2>/dev/null; "$exe" --help 2>/dev/null)"
    mapfile -t COMPREPLY < <(compgen -W "$(grep -o -- '--[a-z][a-z-]*' <<<"$options" | sort -u)" -- "$cur")
    return
  fi
  mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}
complete -o filenames -F _parfilter parfilter-serial parfilter-pthread parfilter-openmp \
  parfilter-mpi parfilter-cuda parfilter-opencl
