"""The safe lists: for each program people approve most, the options a saved rule covers, and why.

PROTOCOL.md (Permissions): a saved bash rule covers a program (and subcommand) only with options
from its safe list (`shell_options` reads them). What is left off each list is what runs a
program, writes a file the command line does not name as an output, reads a file it does not name,
reaches the network by a URL, or loads settings or plugins from a file: `sed -i`/`e`/`w`, `sort
-o`/`--compress-program`, `find -exec`/`-delete`/`-fprint`, `awk` `system()`, `git --output`/
`--git-dir`/`-c`, `kubectl --kubeconfig`, `helm --post-renderer`. A listed program used with
another option gets no rule at all (it asks); a program or subcommand not listed here gets a rule
for its exact command line only (`shell_rules`).

Not listed, and why (each is then covered only by an exact-line rule):
- `make`, `npm test`/`run`, `pytest`, `go test`: run recipes, scripts and tests the project
  defines (a Makefile, package.json, conftest.py), files the agent can edit;
- `terraform plan`/`apply`/`init`/`show`/`output`/`console`: reach the network or the state,
  where secrets are (`show` prints the state);
- `tflint`: runs the plugins `.tflint.hcl` names from `.tflint.d/plugins` in the project;
- `checkov`: loads `.checkov.yaml` from the directory, which can load Python checks;
- `kustomize build`: follows what kustomization.yaml names, remote URLs and `.env` files
  (`secretGenerator`) included;
- `curl`, `wget`, `ssh`, `tar`, `xargs`, `env`: see `shell_rules.NO_RULE_PROGRAMS` and the options
  no rule covers there.
"""

from __future__ import annotations

from typing import TypedDict

from iac_code.agent.shell_options import Parsed, Program, Spec
from iac_code.agent.shell_scripts import awk_program_ok, jq_filter_ok, sed_script_ok, yq_expression_ok

_GREP = (
    "-a -b -c -E -F -G -h -H -i -I -l -L -n -o -P -q -r -R -s -T -U -v -w -x -y -z -Z -A= -B= -C= -e= "
    "-m= -d= -f@ --after-context= --before-context= --context= --basic-regexp --extended-regexp "
    "--fixed-strings --perl-regexp --byte-offset --count --color? --colour? --dereference-recursive "
    "--directories= --exclude= --exclude-dir= --include= --file@ --files-with-matches "
    "--files-without-match --ignore-case --no-ignore-case --invert-match --word-regexp --line-regexp "
    "--line-number --no-filename --with-filename --only-matching --quiet --silent --recursive --regexp= "
    "--max-count= --null --null-data --text --binary-files= --label= --line-buffered --initial-tab --no-messages"
)
_RG = (
    "-i -S -s -v -n -N -c -l -o -w -x -F -u -. -H -I -p -q -U -0 -L -a -P -t= -T= -g= -e= -m= -A= -B= -C= "
    "-M= -d= -j= -E= -r= -f@ --hidden --no-ignore --no-ignore-vcs --no-ignore-parent --no-ignore-dot "
    "--ignore-case --smart-case --case-sensitive --invert-match --line-number --no-line-number --count "
    "--count-matches --files-with-matches --files-without-match --only-matching --word-regexp --line-regexp "
    "--fixed-strings --with-filename --no-filename --no-heading --heading --pretty --quiet --multiline "
    "--multiline-dotall --null --follow --text --files --json --vimgrep --column --trim --stats "
    "--no-messages --passthru --include-zero --pcre2 --no-config --sort= --sortr= --color= --colors= "
    "--type= --type-not= --glob= --iglob= --regexp= --max-count= --context= --after-context= "
    "--before-context= --max-columns= --max-columns-preview --max-depth= --threads= --max-filesize= "
    "--encoding= --replace= --engine= --field-match-separator= --path-separator= --file@"
)
_DIFF = (
    "-a -b -B -d -i -N -p -q -r -s -t -T -u -w -y -C= -U= -W= -x= -I= -F= --brief --report-identical-files "
    "--recursive --new-file --unidirectional-new-file --text --ignore-case --ignore-all-space "
    "--ignore-space-change --ignore-blank-lines --ignore-tab-expansion --ignore-trailing-space "
    "--strip-trailing-cr --unified? --context? --side-by-side --suppress-common-lines --left-column "
    "--color? --exclude= --ignore-matching-lines= --label= --show-c-function --show-function-line= "
    "--minimal --speed-large-files --normal --width= --tabsize= --expand-tabs --initial-tab "
    "--no-dereference --suppress-blank-empty --horizon-lines="
)
_JQ = (
    "-r -j -a -c -C -M -n -e -s -S -R --raw-output --join-output --ascii-output --compact-output "
    "--color-output --monochrome-output --null-input --exit-status --slurp --sort-keys --raw-input --tab "
    "--indent= --arg== --argjson== --slurpfile=@ --rawfile=@ --seq --stream --stream-errors --raw-output0"
)
_YQ = (  # jq's without `-s`: mikefarah's yq reads `-s EXP` as --split-exp, which writes a file per result
    _JQ.replace(" -s ", " ") + " -y -Y -t -x -o= -p= -P -I= -N --yaml-output --yaml-roundtrip --toml-output --xml-output "
    "--output-format= --input-format= --prettyPrint --no-doc --width= --indentless-lists "
    "--explicit-start --explicit-end"
)
_TF_FILES = "*.tf *.tfvars *.tf.json *.tftest.hcl"
_HEAD = "-c= -n= -q -v -z --bytes= --lines= --quiet --silent --verbose --zero-terminated"
_SUMS = "-b -t -z --tag --binary --text --zero"  # not `-c`: the list it checks names files the line does not

_PLAIN_TOOLS: dict[str, Spec] = {
    "ls": Spec(
        "lists names and attributes of the paths named",
        "-a -A -b -B -c -C -d -F -g -G -h -H -i -k -l -L -m -n -N -o -p -q -Q -r -R -s -S -t -u -U -v -x -X "
        "-1 -Z -w= -I= -T= --all --almost-all --human-readable --si --classify? --color? --colour? --directory "
        "--dereference --escape --file-type --full-time --group-directories-first --hide= --ignore= "
        "--ignore-backups --indicator-style= --inode --literal --numeric-uid-gid --no-group --quote-name "
        "--recursive --reverse --size --sort= --time= --time-style= --format= --width= --block-size= "
        "--hyperlink? --author --context",
    ),
    "cat": Spec(
        "prints the files named",
        "-A -b -e -E -n -s -t -T -u -v --show-all --number-nonblank --number --squeeze-blank --show-ends "
        "--show-tabs --show-nonprinting",
    ),
    "head": Spec("prints the start of the files named", _HEAD, numeric=True),
    "tail": Spec(
        "prints the end of the files named (`-f` follows them)",
        _HEAD + " -f -F -s= --follow? --retry --pid= --sleep-interval= --max-unchanged-stats=",
        numeric=True,
    ),
    "wc": Spec("counts lines, words and bytes (not `--files0-from`)", "-c -m -l -L -w --bytes --chars --lines --max-line-length --words --total="),
    "grep": Spec(
        "searches the files named (`-f` patterns from a named file); recursive only where no secret is",
        _GREP, first="pattern", instead="-e --regexp -f --file", numeric=True,
        recursive="-r -R --recursive --dereference-recursive -d=recurse --directories=recurse",
    ),
    "rg": Spec(
        "searches like grep, always recursively (not `--pre`, `--search-zip`, `--ignore-file`)",
        _RG, first="pattern", instead="-e --regexp -f --file --files --type-list", recursive="*",
        skips_hidden=True, hidden="--hidden -.",
    ),
    "find": Spec("lists names (tests and printing only; find never reads contents)"),  # `shell_scripts.find_parse`
    "sed": Spec(
        "edits the stream it prints: no `-i`, no script from a file, no `e`/`w`/`r` commands",
        "-n -E -r -s -u -z --quiet --silent --regexp-extended --separate --unbuffered --null-data --posix "
        "--debug --sandbox -l= --line-length= -e! --expression!",
        first="script", instead="-e --expression", script=sed_script_ok,
    ),
    "awk": Spec(
        "prints what it reads: no `-f`, no `system()`, pipes, `getline`, ENVIRON or output redirection",
        "-F= -v= --field-separator= --assign=", first="script", script=awk_program_ok,
    ),
    "sort": Spec(
        "sorts what it reads (not `-o`, `-T`, `--compress-program`, `--files0-from`, `--random-source`)",
        "-b -d -f -g -h -i -M -n -R -r -V -c -C -m -s -u -z -k= -t= -S= --ignore-leading-blanks "
        "--dictionary-order --ignore-case --general-numeric-sort --human-numeric-sort --ignore-nonprinting "
        "--month-sort --numeric-sort --random-sort --reverse --version-sort --check? --merge --stable --unique "
        "--zero-terminated --key= --field-separator= --buffer-size= --parallel= --sort= --debug",
    ),
    "uniq": Spec(
        "filters repeated lines of one input (a second operand is a file it writes)",
        "-c -d -D -u -i -z -f= -s= -w= --count --repeated --all-repeated? --group? --unique --ignore-case "
        "--zero-terminated --skip-fields= --skip-chars= --check-chars=",
        max_operands=1,
    ),
    "cut": Spec(
        "prints columns of the files named",
        "-b= -c= -d= -f= -n -s -z --bytes= --characters= --delimiter= --fields= --complement --only-delimited "
        "--output-delimiter= --zero-terminated",
    ),
    "tr": Spec("translates its input (it reads no file)", "-c -C -d -s -t --complement --delete --squeeze-repeats --truncate-set1", operands="plain"),
    "diff": Spec("compares the files named; recursive only where no secret is", _DIFF, recursive="-r --recursive"),
    "jq": Spec("filters JSON: no `env`/`$ENV`, modules or filter file", _JQ, first="script", script=jq_filter_ok),
    "yq": Spec("filters YAML like jq: no `-i`, `-s` (split into files), `env`, `envsubst`, `load`, `eval`", _YQ, first="script", script=yq_expression_ok),
    "cp": Spec(
        "copies inside the project (not `-l`/`-s` links, not `-L`); a recursive copy only of trees with no secret",
        "-a -b -d -f -i -n -p -P -r -R -T -u -v -x -t@ --archive --backup? --force --interactive --no-clobber "
        "--no-dereference --preserve? --no-preserve= --parents --recursive --strip-trailing-slashes "
        "--target-directory@ --no-target-directory --update? --verbose --one-file-system --sparse= --reflink? "
        "--attributes-only",
        recursive="-r -R -a --recursive --archive", writes=True,
    ),
    "mv": Spec(
        "moves inside the project",
        "-b -f -i -n -T -u -v -t@ --backup? --force --interactive --no-clobber --no-target-directory "
        "--strip-trailing-slashes --target-directory@ --update? --verbose",
        writes=True,
    ),
    "mkdir": Spec("makes directories inside the project", "-p -v -m= --parents --verbose --mode=", writes=True),
    "touch": Spec("creates or dates files inside the project", "-a -c -m -d= -t= -r@ --no-create --date= --reference@ --time=", writes=True),
    "cd": Spec("changes the directory later parts run in (checked from there)", "-L -P", max_operands=1),
    "pwd": Spec("prints the directory", "-L -P", max_operands=0),
    "basename": Spec("prints names (reads no file)", "-a -s= -z --multiple --suffix= --zero", operands="plain"),
    "dirname": Spec("prints names (reads no file)", "-z --zero", operands="plain"),
    "realpath": Spec("prints resolved names", "-e -m -s -q -z -L -P --canonicalize-existing --canonicalize-missing --no-symlinks --quiet --zero --relative-to@ --relative-base@"),
    "readlink": Spec("prints link targets", "-f -e -m -n -q -s -v -z --canonicalize --canonicalize-existing --canonicalize-missing --no-newline --quiet --silent --verbose --zero"),
    "stat": Spec("prints file status", "-t -f -c= --format= --printf= --terse --file-system"),
    "file": Spec("names the type of the files named (not `-z`, which runs decompressors)", "-b -i -k -L -h -N -0 --brief --mime --mime-type --mime-encoding --keep-going --dereference --no-dereference --no-pad --print0"),
    "du": Spec(
        "prints disk usage",
        "-a -b -c -h -k -m -s -x -0 -d= --max-depth= --summarize --human-readable --apparent-size --total "
        "--exclude= --all --one-file-system --bytes --block-size= --threshold= --inodes --null",
    ),
    "tree": Spec("lists a tree of names (not `-o`, which writes a file)", "-a -d -f -i -s -h -D -F -C -n -J -p -u -g -L= -P= -I= --noreport --dirsfirst --du --charset= --gitignore"),
    "nl": Spec("numbers lines", "-b= -n= -w= -s= -v= -i= -h= -f= -d= -p"),
    "tac": Spec("prints lines in reverse", "-b -r -s= --before --regex --separator="),
    "rev": Spec("reverses lines"),
    "column": Spec("formats columns", "-t -x -n -e -J -s= -o= -c= -N= -R= --table --separator= --output-separator="),
    "comm": Spec("compares sorted files", "-1 -2 -3 -z --check-order --nocheck-order --output-delimiter= --total --zero-terminated"),
    "paste": Spec("merges lines", "-s -z -d= --serial --zero-terminated --delimiters="),
    "fold": Spec("wraps lines", "-b -s -w= --bytes --spaces --width="),
    "cmp": Spec("compares files", "-b -l -s -i= -n= --print-bytes --verbose --quiet --silent --bytes= --ignore-initial="),
    "base64": Spec("encodes one file it prints", "-d -i -w= --decode --ignore-garbage --wrap=", max_operands=1),
    **{sum_: Spec("prints checksums", _SUMS) for sum_ in ("sha256sum", "sha1sum", "sha512sum", "md5sum", "b2sum", "cksum")},
    "date": Spec("prints the date (not `-s`, `-f`)", "-u -R -d= --date= --utc --universal --rfc-3339= --iso-8601? --rfc-email", operands="plain"),
    "uname": Spec("prints the system's name", "-a -s -n -r -v -m -p -i -o --all", max_operands=0),
    "whoami": Spec("prints the user's name", max_operands=0),
    "id": Spec("prints the user's ids", "-u -g -G -n -r -z", operands="plain"),
    "which": Spec("finds programs on PATH", "-a", operands="plain"),
}


def _pattern_mode(value: str | None) -> bool:
    """Whether a kubectl `-o` value prints in a format (not a template read from a file)."""
    v = value or ""
    return v in ("json", "yaml", "wide", "name") or (v.startswith(("jsonpath=", "custom-columns=", "go-template=")) and "file" not in v.split("=")[0])


def _kubectl_output(parsed: Parsed) -> bool:
    return all(_pattern_mode(v) for n, v in parsed.options if n in ("-o", "--output"))


_GIT_DIFF = (
    "-p -u -s -z -R -a -b -w -W -D -U= -l= -S= -G= --patch --no-patch --unified= --raw --patch-with-raw --stat? "
    "--numstat --shortstat --dirstat? --summary --name-only --name-status --submodule? --color? --no-color "
    "--color-moved? --word-diff? --word-diff-regex= --color-words? --no-renames --check --full-index --binary "
    "--abbrev? --find-renames? --find-copies? --irreversible-delete --diff-filter= --text --ignore-space-at-eol "
    "--ignore-space-change --ignore-all-space --ignore-blank-lines --ignore-cr-at-eol --inter-hunk-context= "
    "--function-context --exit-code --quiet --no-ext-diff --no-textconv --ignore-submodules? --src-prefix= "
    "--dst-prefix= --no-prefix --default-prefix --relative? --minimal --patience --histogram --anchored= "
    "--diff-algorithm= --indent-heuristic --no-indent-heuristic --stat-width= --compact-summary"
)
_GIT_LOG = (
    _GIT_DIFF + " -n= -i -E -F -P -g --max-count= --skip= --since= --after= --until= --before= --author= --committer= "
    "--grep= --all-match --invert-grep --regexp-ignore-case --basic-regexp --extended-regexp --fixed-strings "
    "--perl-regexp --merges --no-merges --min-parents= --max-parents= --first-parent --all --branches? --tags? "
    "--remotes? --not --oneline --format= --pretty? --abbrev-commit --no-abbrev-commit --decorate? --no-decorate "
    "--source --graph --reverse --date= --relative-date --follow --topo-order --date-order --author-date-order "
    "--left-right --cherry-pick --cherry-mark --boundary --simplify-by-decoration --full-history --dense --sparse "
    "--encoding= --no-notes --mailmap --no-mailmap --use-mailmap --log-size --walk-reflogs --children --parents"
)


def _git_branch(parsed: Parsed) -> bool:
    """Operands of `git branch` are patterns only with `--list` (else the first creates a branch)."""
    return not parsed.operands or parsed.given(frozenset({"-l", "--list"}))


_GIT = Program(
    Spec("git's own options: `-C` (checked), no `-c`, `--git-dir`, `--work-tree`, `--exec-path`", "-C@ -P --version --no-pager --no-optional-locks --literal-pathspecs --glob-pathspecs --noglob-pathspecs --icase-pathspecs --no-replace-objects"),
    {
        "status": Spec(
            "shows the work tree's state",
            "-s -b -v -z -u? --short --branch --porcelain? --long --verbose --untracked-files? --ignored? "
            "--ignore-submodules? --column? --no-column --ahead-behind --no-ahead-behind --renames --no-renames "
            "--find-renames? --show-stash",
        ),
        "diff": Spec("shows changes (not `--output`, `--ext-diff`, `--no-index`)", _GIT_DIFF + " --cached --staged --merge-base", shows_content=True),
        "log": Spec("shows history (not `--output`, `--ext-diff`, `--show-signature`)", _GIT_LOG, numeric=True, shows_content=True),
        "show": Spec("shows objects (not `--output`, `--ext-diff`)", _GIT_LOG, numeric=True, shows_content=True),
        "branch": Spec(
            "lists branches (no `-d`, `-m`, `-c`, `-f`, `--edit-description`, no new branch)",
            "-a -r -v -l -i --list --all --remotes --verbose --show-current --contains? --no-contains? --merged? "
            "--no-merged? --points-at= --sort= --format= --color? --no-color --column? --no-column --abbrev= "
            "--no-abbrev --ignore-case --omit-empty",
            operands="plain", check=_git_branch,
        ),
        "rev-parse": Spec(
            "names revisions and the repository's directories",
            "-q --show-toplevel --show-prefix --show-cdup --git-dir --absolute-git-dir --git-common-dir "
            "--is-inside-work-tree --is-inside-git-dir --is-bare-repository --is-shallow-repository --abbrev-ref? "
            "--symbolic --symbolic-full-name --short? --verify --quiet --all --branches? --tags? --remotes? "
            "--show-superproject-working-tree --show-object-format? --local-env-vars --path-format= --sq",
        ),
        "ls-files": Spec(
            "lists the index's files (not `-X`/`--exclude-from`)",
            "-c -d -m -o -i -s -u -k -z -t -v -f -x= --cached --deleted --modified --others --ignored --stage "
            "--unmerged --killed --directory --no-empty-directory --eol --exclude-standard --full-name "
            "--recurse-submodules --error-unmatch --abbrev? --debug --deduplicate --sparse --format= --exclude= "
            "--exclude-per-directory=",
        ),
    },
)

_TERRAFORM = Program(
    Spec("terraform's own options: `-chdir` (checked)", "-chdir@ -help -version", go_style=True),
    {
        "fmt": Spec(
            "rewrites .tf files in the canonical style (a .tf link out of the project would be rewritten: none may be there)",
            "-list? -write? -diff -check -recursive -no-color", go_style=True, writes=True, recursive="*", only=_TF_FILES,
        ),
        "validate": Spec(
            "checks the configuration (starts the provider plugins `init` installed in `.terraform`, which no rule writes)",
            "-json -no-color -no-tests -test-directory=", go_style=True, recursive="*", only=_TF_FILES,
        ),
        "version": Spec("prints versions", "-json", go_style=True, max_operands=0),
        "providers": Spec("lists the providers the configuration needs (not `lock`, `mirror`, `schema`)", "-test-directory=", go_style=True, max_operands=0),
        "graph": Spec("prints the dependency graph (not `-plan`: a plan file holds secrets)", "-type= -draw-cycles -module-depth=", go_style=True, max_operands=0),
    },
)

# kubectl and helm take their own options after the subcommand too: each subcommand's list repeats them
_KUBE = "-n= --namespace= --context= --cluster= --user= --request-timeout= -v= --v= --match-server-version? --warnings-as-errors"
_KUBE_FILES = " -f@ --filename@ -l= --selector="
class _Walks(TypedDict):
    walks: str
    only: str


_KUBE_WALK: _Walks = {"walks": "-f --filename", "only": "*.yaml *.yml *.json"}
_KUBECTL = Program(
    Spec("kubectl's own options: no `--kubeconfig` (its `exec` runs a command), `--server`, `--token`, `--as`", _KUBE),
    {
        "get": Spec(
            "prints resources (`-o` formats only, not template files)",
            _KUBE + _KUBE_FILES + " -A -o= -w -L= --all-namespaces --output= --field-selector= --watch --watch-only "
            "--show-labels --label-columns= --sort-by= --no-headers --show-kind --chunk-size= --ignore-not-found "
            "--subresource=",
            operands="plain", check=_kubectl_output, **_KUBE_WALK,
        ),
        "describe": Spec("describes resources", _KUBE + _KUBE_FILES + " -A --all-namespaces --show-events? --chunk-size=", operands="plain", **_KUBE_WALK),
        "diff": Spec("diffs manifests against the cluster", _KUBE + _KUBE_FILES + " --server-side --field-manager= --force-conflicts --concurrency=", **_KUBE_WALK),
        "explain": Spec("documents resource fields", _KUBE + " -o= --recursive --api-version= --output=", operands="plain"),
    },
)


def _local_chart(parsed: Parsed) -> bool:
    """The chart of `helm template [NAME] CHART` is the last operand, and a local path (a name that
    is not would be fetched from a repository)."""
    if not parsed.operands or parsed.operands[-1] is None:
        return False
    chart = parsed.operands[-1]
    return not any(c in chart for c in ":@") and "oci" not in chart


_HELM = "-n= --namespace= --kube-context= --debug --burst-limit= --qps="
_HELM_VALUES = " -f@ --values@ --set= --set-string= --set-json= --set-literal= --kube-version="
_HELM_CMD = Program(
    Spec("helm's own options: no `--kubeconfig`, registry or repository settings", _HELM),
    {
        "template": Spec(
            "renders a local chart (no `--post-renderer`, `--repo`, `--output-dir`, `--set-file`); only a chart with no secret in it",
            _HELM + _HELM_VALUES + " -s= -a= -g --name-template= --show-only= --include-crds --skip-crds --skip-tests "
            "--api-versions= --is-upgrade --no-hooks --release-name --create-namespace --generate-name --description= "
            "--disable-openapi-validation",
            check=_local_chart, recursive="*",
        ),
        "lint": Spec("checks a local chart; only a chart with no secret in it", _HELM + _HELM_VALUES + " --strict --with-subcharts --quiet --skip-schema-validation", recursive="*"),
    },
)

_IAC_CODE = Program(
    Spec("iac-code's own options: `--version` (`-p` runs an agent)", "--version"),
    {
        "validate": Spec(
            "validates IaC files offline (only trees whose IaC files are no links out)",
            "-h --format= --kind= --ignore= --kubernetes-version= --terraform-validate",
            recursive="*", only="*.tf *.tfvars *.tf.json *.hcl *.yaml *.yml *.json *.template",
        )
    },
)

SAFE: dict[str, Spec | Program] = {
    **_PLAIN_TOOLS,
    "git": _GIT,
    "terraform": _TERRAFORM,
    "tofu": _TERRAFORM,
    "kubectl": _KUBECTL,
    "helm": _HELM_CMD,
    "iac-code": _IAC_CODE,
}
"""Program -> its safe list (a `Spec`, or a `Program` of subcommands)."""
