#!/usr/bin/env bash
# The lab's full campaign on a rented AWS EC2 c7g.medium (Graviton, 1 vCPU, arm64), one step
# at a time. Run from anywhere: `lab/aws/steps.sh STEP` (`lab/aws/steps.sh --help` lists the
# steps in order). Each step keeps its ids in a small state file, so steps can be run from
# separate terminals; `teardown` deletes everything the steps made. The state file, the
# private key, the box's host keys and the data checksums live in a private folder outside
# any git work tree (${XDG_STATE_HOME:-~/.local/state}/batching-lab/). See lab/aws/README.md.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCRIPT_DIR/../.." && pwd)
DATA_HOME=${LAB_HOME:-$REPO/.cache/lab}
# Where the state file was kept before it moved out of the repository (moved on first use).
OLD_STATE_FILE=$SCRIPT_DIR/.state
# Set by locate_state once the step is known.
STATE_FILE='' STATE_DIR='' DEFAULT_STATE_DIR='' KNOWN_HOSTS='' SUMS_LOCAL='' SUMS_BOX=''

DEFAULT_REGION=us-east-1
TAG_KEY=course
TAG_VALUE=batching-lab
INSTANCE_TYPE=c7g.medium
ROOT_VOLUME_GIB=16
# Ubuntu 24.04 LTS for arm64, published by Canonical as a public SSM parameter.
AMI_PARAMETER=${AMI_PARAMETER:-/aws/service/canonical/ubuntu/server/24.04/stable/current/arm64/hvm/ebs-gp3/ami-id}
BOX_PYTHON=${BOX_PYTHON:-3.11.7}
UV_VERSION=0.13.8
STEPS=(check access launch wait copy quiet start watch demo fetch teardown)

export AWS_PAGER=""

usage() {
    cat <<EOF
Usage: lab/aws/steps.sh STEP

Runs the lab's full campaign on one rented AWS EC2 $INSTANCE_TYPE. Run the steps in order:

  check     refuse if another course box (tag $TAG_KEY=$TAG_VALUE) is running or pending
  access    create a key pair (private key file, mode 600) and a security group that
            allows SSH only from MY_IP/32 (set MY_IP to your public IPv4 address)
  launch    start the $INSTANCE_TYPE from the Ubuntu 24.04 arm64 image (this costs money
            until teardown)
  wait      wait until it is running and its status checks pass; save its public address
  copy      copy the git-tracked lab files and the data files, set up Python $BOX_PYTHON and
            the locked libraries with uv $UV_VERSION, compare the data files' sha256
  quiet     stop and mask timers, cron and agents that would wake during the runs
  start     start the campaign detached (PROFILE=full, CAMPAIGN=name, --cpu 0); its progress
            lines go to the serial console
  watch     print the campaign's progress lines from the serial console (no login)
  demo      run \`python -m lab demo\` on the box (refused while the campaign runs)
  fetch     copy the campaign's raw files home into data/raw/ and check their sha256
  teardown  terminate the box, delete the security group, the key pair and the key file

Environment:
  AWS_REGION      region (default $DEFAULT_REGION; fixed by the first step in the state file)
  AWS_STATE_FILE  state file (default \${XDG_STATE_HOME:-~/.local/state}/batching-lab/state);
                  it, the private key and the box's host keys must be outside any git work
                  tree: a state file inside one is refused
  MY_IP           your public IPv4 address, for \`access\`
  AMI_ID          an arm64 image to use instead of the Ubuntu 24.04 SSM parameter
  BOX_USER        login name on the image (default ubuntu)
  BOX_PYTHON      Python version uv installs on the box (default $BOX_PYTHON)
  PROFILE         campaign profile for \`start\`: full (default) or quick
  CAMPAIGN        campaign name for \`start\` (default aws-c7g-YYYYMMDD)
  FORCE=1         let \`teardown\` delete the box before its raw files were fetched
EOF
}

say() { printf 'steps.sh %s: %s\n' "$STEP" "$*" >&2; }
die() {
    printf 'steps.sh %s: error: %s\n' "$STEP" "$*" >&2
    exit 1
}

# --- where the state lives: a private folder outside any git work tree ---------------------

# git_work_tree PATH: print the git work tree PATH is in (symlinks resolved); fail if none.
git_work_tree() {
    local dir=$1
    while [[ ! -d $dir ]]; do dir=$(dirname "$dir"); done
    dir=$(cd -P "$dir" && pwd -P)
    while true; do
        # .git is a folder in a clone and a file in a worktree or submodule.
        if [[ -e $dir/.git ]]; then
            printf '%s\n' "$dir"
            return 0
        fi
        [[ $dir != / ]] || return 1
        dir=$(dirname "$dir")
    done
}

# refuse_git_work_tree PATH WHAT: stop if PATH is inside a git work tree, whoever chose it.
refuse_git_work_tree() {
    local top fix
    top=$(git_work_tree "$1") || return 0
    if [[ -n ${AWS_STATE_FILE:-} ]]; then
        fix="point AWS_STATE_FILE at a file outside any git folder, or unset it to use $DEFAULT_STATE_DIR"
    else
        fix="set AWS_STATE_FILE (or XDG_STATE_HOME) to a place outside any git folder"
    fi
    die "refusing to keep $2 at $1: that is inside the git work tree $top, where one \`git add\` would commit the private key that opens the box; $fix"
}

locate_state() {
    local state_home=${XDG_STATE_HOME:-}
    # The XDG rule: a relative XDG_STATE_HOME is ignored.
    if [[ $state_home != /* ]]; then
        [[ -n ${HOME:-} ]] || die "HOME is not set: set AWS_STATE_FILE to a file outside any git folder"
        state_home=$HOME/.local/state
    fi
    DEFAULT_STATE_DIR=$state_home/batching-lab
    STATE_FILE=${AWS_STATE_FILE:-$DEFAULT_STATE_DIR/state}
    [[ $STATE_FILE == /* ]] || STATE_FILE=$PWD/$STATE_FILE
    STATE_DIR=$(dirname "$STATE_FILE")
    KNOWN_HOSTS=$STATE_FILE.known_hosts
    SUMS_LOCAL=$STATE_FILE.data-sha256.local
    SUMS_BOX=$STATE_FILE.data-sha256.box
    refuse_git_work_tree "$STATE_FILE" "the state file"
    [[ ! -L $STATE_FILE ]] || die "the state file $STATE_FILE is a symbolic link; use a plain file"
    if [[ -z ${AWS_STATE_FILE:-} && -f $OLD_STATE_FILE ]]; then
        move_old_state
    fi
}

# The private folder, mode 700 (its parents get the usual mode).
make_state_dir() {
    [[ -d $STATE_DIR ]] && return 0
    mkdir -p "$(dirname "$STATE_DIR")"
    mkdir -m 700 "$STATE_DIR"
}

# Earlier versions kept the state and the key in lab/aws/, inside the repository: move them
# out, so a campaign started with them can still be torn down.
move_old_state() {
    [[ ! -e $STATE_FILE ]] ||
        die "two state files: $OLD_STATE_FILE (from an older steps.sh) and $STATE_FILE. Tear one down with AWS_STATE_FILE pointing at it, after moving it out of the repository"
    local key_file suffix
    make_state_dir
    key_file=$(sed -n 's/^KEY_FILE=//p' "$OLD_STATE_FILE" | tail -n 1)
    if [[ -n $key_file && -f $key_file && $(dirname "$key_file") == "$SCRIPT_DIR" ]]; then
        mv "$key_file" "$STATE_DIR/"
        { grep -v '^KEY_FILE=' "$OLD_STATE_FILE" || true; } >"$OLD_STATE_FILE.tmp.$$"
        printf 'KEY_FILE=%s\n' "$STATE_DIR/$(basename "$key_file")" >>"$OLD_STATE_FILE.tmp.$$"
        mv "$OLD_STATE_FILE.tmp.$$" "$OLD_STATE_FILE"
    fi
    for suffix in .known_hosts .data-sha256.local .data-sha256.box; do
        [[ ! -f $OLD_STATE_FILE$suffix ]] || mv "$OLD_STATE_FILE$suffix" "$STATE_FILE$suffix"
    done
    mv "$OLD_STATE_FILE" "$STATE_FILE"
    chmod 600 "$STATE_FILE"
    say "moved the state file${key_file:+ and the private key} out of the repository into $STATE_DIR"
}

# --- the state file: KEY=value lines, read without sourcing it -----------------------------

state_get() {
    [[ -f $STATE_FILE ]] || return 0
    sed -n "s/^$1=//p" "$STATE_FILE" | tail -n 1
}

state_set() {
    local key=$1 value=$2 tmp
    [[ $value != *$'\n'* ]] || die "internal: $key has a newline"
    make_state_dir
    tmp=$STATE_FILE.tmp.$$
    (
        umask 077
        { grep -v "^$key=" "$STATE_FILE" 2>/dev/null || true; } >"$tmp"
        printf '%s=%s\n' "$key" "$value" >>"$tmp"
    )
    mv "$tmp" "$STATE_FILE"
}

state_del() {
    local key tmp=$STATE_FILE.tmp.$$
    [[ -f $STATE_FILE ]] || return 0
    for key in "$@"; do
        { grep -v "^$key=" "$STATE_FILE" || true; } >"$tmp"
        mv "$tmp" "$STATE_FILE"
    done
}

# need KEY STEP: the saved value, or stop and name the step that saves it.
need() {
    local value
    value=$(state_get "$1")
    [[ -n $value ]] || die "no $1 in $STATE_FILE: run \`lab/aws/steps.sh $2\` first"
    printf '%s\n' "$value"
}

# --- AWS, ssh and scp ---------------------------------------------------------------------

resolve_region() {
    local saved wanted=${AWS_REGION:-${AWS_DEFAULT_REGION:-}}
    saved=$(state_get REGION)
    if [[ -n $saved ]]; then
        [[ -z $wanted || $wanted == "$saved" ]] ||
            die "$STATE_FILE belongs to region $saved but AWS_REGION is $wanted; unset it, or use another AWS_STATE_FILE"
        REGION=$saved
    else
        REGION=${wanted:-$DEFAULT_REGION}
    fi
    [[ $REGION =~ ^[a-z]{2}(-[a-z]+)+-[0-9]+$ ]] || die "not a region name: $REGION"
}

aws_() { aws "$@" --region "$REGION"; }

require_tools() {
    local tool
    for tool in "$@"; do
        command -v "$tool" >/dev/null || die "\`$tool\` is not installed (needed by this step)"
    done
}

ssh_setup() {
    BOX_IP=$(need PUBLIC_IP wait)
    BOX_LOGIN=$(state_get BOX_USER)
    BOX_LOGIN=${BOX_LOGIN:-ubuntu}
    local key_file host_check=accept-new
    key_file=$(need KEY_FILE access)
    [[ -f $key_file ]] || die "key file $key_file is missing: the box cannot be reached without it"
    # Host keys read from the box's console by `wait` are trusted; otherwise the first one seen.
    [[ -s $KNOWN_HOSTS ]] && host_check=yes
    SSH_OPTS=(-i "$key_file" -o IdentitiesOnly=yes -o BatchMode=yes -o ConnectTimeout=15
        -o ServerAliveInterval=30 -o LogLevel=ERROR
        -o UserKnownHostsFile="$KNOWN_HOSTS" -o StrictHostKeyChecking="$host_check")
}

# box COMMAND: one command on the box. box_script ARGS < SCRIPT: a bash script on the box.
box() { ssh -n "${SSH_OPTS[@]}" "$BOX_LOGIN@$BOX_IP" "$@"; }
box_script() { ssh "${SSH_OPTS[@]}" "$BOX_LOGIN@$BOX_IP" bash -s -- "$@"; }

box_campaign_state() {
    # shellcheck disable=SC2016  # expanded on the box
    box 'if [ -f ~/lab/run.pid ] && kill -0 "$(cat ~/lab/run.pid)" 2>/dev/null; then echo running; else echo stopped; fi'
}

# "sha256  path" lines for the files under the given folders of the current directory.
local_sums() {
    local tool=(sha256sum)
    command -v sha256sum >/dev/null || tool=(shasum -a 256)
    find "$@" -type f -print0 | LC_ALL=C sort -z | xargs -0 "${tool[@]}"
}

check_name() {
    [[ $2 =~ ^[A-Za-z0-9][A-Za-z0-9._-]*$ ]] || die "$1 may hold only letters, digits, '.', '_' and '-': $2"
}

# --- the steps ----------------------------------------------------------------------------

step_check() {
    require_tools aws ssh scp git tar
    resolve_region
    local who running
    who=$(aws_ sts get-caller-identity --query Arn --output text) ||
        die "AWS credentials do not work (configure them with \`aws configure\` or aws sso login)"
    say "AWS identity $who, region $REGION"
    running=$(aws_ ec2 describe-instances \
        --filters "Name=tag:$TAG_KEY,Values=$TAG_VALUE" "Name=instance-state-name,Values=pending,running" \
        --query 'Reservations[].Instances[].[InstanceId,State.Name,PublicIpAddress]' --output text)
    if [[ -n ${running//[[:space:]]/} ]]; then
        printf '%s\n' "$running" >&2
        die "another course box ($TAG_KEY=$TAG_VALUE) is already running in $REGION (above): tear it down first (lab/aws/steps.sh teardown, with its state file)"
    fi
    state_set REGION "$REGION"
    say "no course box is running in $REGION. Next: MY_IP=<your public IPv4> lab/aws/steps.sh access"
}

step_access() {
    resolve_region
    [[ -z $(state_get KEY_NAME) ]] ||
        die "access was already made (key $(state_get KEY_NAME)); run teardown to start over"
    local my_ip=${MY_IP:-} name key_file material group_id octet
    [[ -n $my_ip ]] || die "set MY_IP to your public IPv4 address (the one the internet sees; your router's status page shows it), e.g. MY_IP=203.0.113.7 lab/aws/steps.sh access"
    my_ip=${my_ip%/32}
    [[ $my_ip =~ ^[0-9]{1,3}(\.[0-9]{1,3}){3}$ ]] || die "MY_IP is not an IPv4 address: $my_ip"
    for octet in ${my_ip//./ }; do
        ((10#$octet <= 255)) || die "MY_IP is not an IPv4 address: $my_ip"
    done
    state_set REGION "$REGION"
    name=batching-lab-$(date -u +%Y%m%d-%H%M%S)
    key_file=$STATE_DIR/$name.pem
    [[ ! -e $key_file ]] || die "$key_file already exists"
    refuse_git_work_tree "$key_file" "the private key"

    material=$(aws_ ec2 create-key-pair --key-name "$name" --key-type ed25519 \
        --tag-specifications "ResourceType=key-pair,Tags=[{Key=$TAG_KEY,Value=$TAG_VALUE}]" \
        --query KeyMaterial --output text)
    state_set KEY_NAME "$name"
    (
        umask 077
        printf '%s\n' "$material" >"$key_file"
    )
    chmod 600 "$key_file"
    state_set KEY_FILE "$key_file"
    say "key pair $name, private key in $key_file (mode 600)"

    group_id=$(aws_ ec2 create-security-group --group-name "$name" \
        --description "batching lab: SSH from one address only" \
        --tag-specifications "ResourceType=security-group,Tags=[{Key=$TAG_KEY,Value=$TAG_VALUE}]" \
        --query GroupId --output text)
    [[ $group_id =~ ^sg-[0-9a-f]+$ ]] || die "unexpected security group id: $group_id"
    state_set GROUP_ID "$group_id"
    aws_ ec2 authorize-security-group-ingress --group-id "$group_id" \
        --protocol tcp --port 22 --cidr "$my_ip/32" >/dev/null
    state_set MY_IP "$my_ip"
    say "security group $group_id allows SSH from $my_ip/32 only. Next: lab/aws/steps.sh launch"
}

step_launch() {
    resolve_region
    local key_name group_id ami image arch root_device image_name instance_id login
    key_name=$(need KEY_NAME access)
    group_id=$(need GROUP_ID access)
    [[ -z $(state_get INSTANCE_ID) ]] ||
        die "a box was already launched ($(state_get INSTANCE_ID)); run teardown to start over"
    ami=${AMI_ID:-}
    if [[ -z $ami ]]; then
        ami=$(aws_ ssm get-parameter --name "$AMI_PARAMETER" --query Parameter.Value --output text)
    fi
    [[ $ami =~ ^ami-[0-9a-f]+$ ]] || die "not an image id: $ami"
    image=$(aws_ ec2 describe-images --image-ids "$ami" \
        --query 'Images[0].[Architecture,RootDeviceName,Name]' --output text)
    read -r arch root_device image_name <<<"$image"
    [[ $arch == arm64 ]] || die "image $ami is for $arch; a $INSTANCE_TYPE needs arm64"
    login=${BOX_USER:-ubuntu}
    check_name BOX_USER "$login"
    say "image $ami ($image_name), login $login"

    local tags="{Key=$TAG_KEY,Value=$TAG_VALUE},{Key=Name,Value=$key_name}"
    instance_id=$(aws_ ec2 run-instances --image-id "$ami" --instance-type "$INSTANCE_TYPE" \
        --count 1 --key-name "$key_name" --security-group-ids "$group_id" \
        --instance-initiated-shutdown-behavior terminate \
        --metadata-options HttpTokens=required \
        --block-device-mappings "DeviceName=$root_device,Ebs={VolumeSize=$ROOT_VOLUME_GIB,VolumeType=gp3,DeleteOnTermination=true}" \
        --tag-specifications "ResourceType=instance,Tags=[$tags]" "ResourceType=volume,Tags=[$tags]" \
        --query 'Instances[0].InstanceId' --output text)
    [[ $instance_id =~ ^i-[0-9a-f]+$ ]] || die "unexpected instance id: $instance_id"
    state_set INSTANCE_ID "$instance_id"
    state_set AMI_ID "$ami"
    state_set BOX_USER "$login"
    say "launched $instance_id; it costs money from now until teardown. Next: lab/aws/steps.sh wait"
}

step_wait() {
    resolve_region
    local instance_id ip console host_keys attempt
    instance_id=$(need INSTANCE_ID launch)
    say "waiting for $instance_id to run"
    aws_ ec2 wait instance-running --instance-ids "$instance_id"
    ip=$(aws_ ec2 describe-instances --instance-ids "$instance_id" \
        --query 'Reservations[0].Instances[0].PublicIpAddress' --output text)
    [[ $ip =~ ^[0-9]{1,3}(\.[0-9]{1,3}){3}$ ]] || die "$instance_id has no public IPv4 address ($ip)"
    state_set PUBLIC_IP "$ip"
    say "running at $ip; waiting for its status checks (a few minutes)"
    aws_ ec2 wait instance-status-ok --instance-ids "$instance_id"

    # cloud-init prints the host keys to the serial console: trust exactly those.
    console=$(aws_ ec2 get-console-output --instance-id "$instance_id" --latest \
        --query Output --output text || true)
    host_keys=$(printf '%s\n' "$console" | tr -d '\r' |
        sed -n '/BEGIN SSH HOST KEY KEYS/,/END SSH HOST KEY KEYS/p' |
        grep -oE '(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp[0-9]+) [A-Za-z0-9+/=]+' || true)
    if [[ -n $host_keys ]]; then
        printf '%s\n' "$host_keys" | sed "s/^/$ip /" >"$KNOWN_HOSTS"
        say "host keys read from the console into $KNOWN_HOSTS"
    else
        rm -f "$KNOWN_HOSTS"
        say "host keys not on the console yet: ssh will trust the key it sees first"
    fi

    ssh_setup
    for attempt in 1 2 3 4 5 6 7 8 9 10 11 12; do
        if box true; then
            say "ssh to $BOX_LOGIN@$ip works. Next: lab/aws/steps.sh copy"
            return 0
        fi
        say "ssh not answering yet (try $attempt of 12)"
        sleep 10
    done
    die "cannot ssh to $BOX_LOGIN@$ip (is MY_IP=$(state_get MY_IP) still your address?)"
}

step_copy() {
    resolve_region
    ssh_setup
    require_tools git tar
    [[ -f $DATA_HOME/artifacts/manifest.json ]] ||
        die "no data files in $DATA_HOME: run \`make data\` first (the box gets the same files)"
    local commit work
    commit=$(git -C "$REPO" rev-parse HEAD)
    if [[ -n $(git -C "$REPO" status --porcelain --untracked-files=no) ]]; then
        commit=$commit-dirty
        say "warning: tracked files have uncommitted changes; the box gets them as they are now"
    fi
    work=$(mktemp -d)
    # shellcheck disable=SC2064  # expand $work now: it is local to this function
    trap "rm -rf '$work'" EXIT

    # The git-tracked files (as they are in the work tree), without other campaigns' raw data.
    local file
    while IFS= read -r -d '' file; do
        if [[ $file != data/raw/* ]] && [[ -e $REPO/$file || -L $REPO/$file ]]; then
            printf '%s\0' "$file"
        fi
    done < <(git -C "$REPO" ls-files -z) >"$work/files"
    tar -C "$REPO" --null -T "$work/files" -czf "$work/lab-files.tar.gz"
    tar -C "$DATA_HOME" -cf "$work/lab-data.tar" downloads artifacts
    (cd "$DATA_HOME" && local_sums downloads artifacts) >"$SUMS_LOCAL"
    say "copying $(tr -cd '\0' <"$work/files" | wc -c | tr -d ' ') lab files and $(wc -l <"$SUMS_LOCAL" | tr -d ' ') data files to $BOX_IP"
    scp -q "${SSH_OPTS[@]}" "$work/lab-files.tar.gz" "$work/lab-data.tar" "$BOX_LOGIN@$BOX_IP:"

    say "setting up Python $BOX_PYTHON and the locked libraries on the box (several minutes)"
    box_script "$UV_VERSION" "$BOX_PYTHON" "$commit" >&2 <<'BOX'
set -euo pipefail
uv_version=$1 python_version=$2 commit=$3
export DEBIAN_FRONTEND=noninteractive
# apt may still be busy with first-boot upgrades: wait for its lock rather than fail.
sudo -E apt-get -o DPkg::Lock::Timeout=900 -qq update
sudo -E apt-get -o DPkg::Lock::Timeout=900 -qq install -y python3-venv >/dev/null
mkdir -p ~/lab/.cache/lab
tar -xzf ~/lab-files.tar.gz -C ~/lab
tar -xf ~/lab-data.tar -C ~/lab/.cache/lab
rm -f ~/lab-files.tar.gz ~/lab-data.tar
printf '%s\n' "$commit" >~/lab/GIT_COMMIT
cd ~/lab
if [ ! -x .venv-uv/bin/uv ]; then
    python3 -m venv .venv-uv
    .venv-uv/bin/pip install -q "uv==$uv_version"
fi
.venv-uv/bin/uv python install "$python_version"
.venv-uv/bin/uv sync --frozen --managed-python --python "$python_version"
echo "box: $(.venv/bin/python --version), $(uname -m), $(nproc) CPU"
BOX
    box 'cd ~/lab/.cache/lab && find downloads artifacts -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | tee ~/lab/data-sha256.txt' >"$SUMS_BOX"
    if ! diff -u "$SUMS_LOCAL" "$SUMS_BOX" >&2; then
        die "the data files on the box differ from the ones here (sha256 above; here: $SUMS_LOCAL, box: $SUMS_BOX)"
    fi
    state_set GIT_COMMIT "$commit"
    state_set COPIED "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    say "the same $(wc -l <"$SUMS_BOX" | tr -d ' ') data files on both sides (sha256 in $SUMS_BOX). Next: lab/aws/steps.sh quiet"
}

step_quiet() {
    resolve_region
    ssh_setup
    need COPIED copy >/dev/null
    box_script >&2 <<'BOX'
set -uo pipefail
# Timers, cron and agents that wake on their own: a run must not share its one core with them.
units="apt-daily.timer apt-daily-upgrade.timer apt-daily.service apt-daily-upgrade.service
unattended-upgrades.service man-db.timer man-db.service fstrim.timer e2scrub_all.timer
logrotate.timer motd-news.timer dpkg-db-backup.timer update-notifier-download.timer
update-notifier-motd.timer fwupd-refresh.timer ua-timer.timer apport-autoreport.timer
sysstat-collect.timer sysstat-summary.timer systemd-tmpfiles-clean.timer anacron.timer
anacron.service cron.service atd.service packagekit.service snapd.service snapd.socket
snapd.snap-repair.timer snap.amazon-ssm-agent.amazon-ssm-agent.service amazon-ssm-agent.service"
for unit in $units; do
    systemctl cat "$unit" >/dev/null 2>&1 || continue
    if sudo systemctl mask --now "$unit" >/dev/null 2>&1; then
        echo "box: stopped and masked $unit"
    else
        echo "box: could not stop $unit"
    fi
done
echo "box: timers left:"
systemctl list-timers --all --no-pager
for name in cron atd unattended-upgr apt-get dpkg snapd; do
    if pgrep -a -x "$name"; then
        echo "box: warning: $name is still running (above)"
    fi
done
uptime
BOX
    state_set QUIETED "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    say "the box is quiet. Next: lab/aws/steps.sh start"
}

step_start() {
    resolve_region
    ssh_setup
    local commit profile=${PROFILE:-full} campaign
    commit=$(need GIT_COMMIT copy)
    need QUIETED quiet >/dev/null
    [[ $profile == full || $profile == quick ]] || die "PROFILE must be full or quick, not $profile"
    campaign=${CAMPAIGN:-$(state_get CAMPAIGN)}
    campaign=${campaign:-aws-c7g-$(date -u +%Y%m%d)}
    check_name CAMPAIGN "$campaign"
    box_script "$profile" "$campaign" "$commit" >&2 <<'BOX'
set -euo pipefail
profile=$1 campaign=$2 commit=$3
cd ~/lab
if [ -f run.pid ] && kill -0 "$(cat run.pid)" 2>/dev/null; then
    echo "box: the campaign is already running (pid $(cat run.pid))"
    exit 3
fi
console=/dev/console
[ -c /dev/ttyS0 ] && console=/dev/ttyS0
export LAB_GIT_COMMIT=$commit OMP_NUM_THREADS=1 PYTHONUNBUFFERED=1
# Detached from this login; progress lines go to run.log and, marked "[lab] ", to the serial
# console, where `steps.sh watch` reads them without logging in.
# shellcheck disable=SC2016  # $1 $2 $3 are the inner bash's arguments
setsid nohup bash -c '
    { .venv/bin/python -m lab run --profile "$1" --campaign "$2" --cpu 0
      echo "lab run finished with exit code $?"; } 2>&1 |
        tee -a run.log | sed -u "s/^/[lab] /" | sudo tee -a "$3" >/dev/null
' lab-run "$profile" "$campaign" "$console" </dev/null >/dev/null 2>&1 &
echo $! >run.pid
sleep 3
if ! kill -0 "$(cat run.pid)" 2>/dev/null; then
    echo "box: the campaign stopped at once:"
    tail -n 20 run.log
    exit 1
fi
echo "box: campaign $campaign ($profile) running as pid $(cat run.pid), progress on $console"
BOX
    state_set CAMPAIGN "$campaign"
    state_set PROFILE "$profile"
    state_set STARTED "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    state_del FETCHED
    say "started. Follow it with lab/aws/steps.sh watch; when it ends: lab/aws/steps.sh fetch"
}

step_watch() {
    resolve_region
    local instance_id lines
    instance_id=$(need INSTANCE_ID launch)
    lines=$(aws_ ec2 get-console-output --instance-id "$instance_id" --latest \
        --query Output --output text | tr -d '\r' | sed -n 's/^.*\[lab\] //p')
    if [[ -z $lines ]]; then
        say "no progress lines on the console yet (the console lags a few minutes; try again)"
    else
        printf '%s\n' "$lines"
    fi
}

step_demo() {
    resolve_region
    ssh_setup
    need COPIED copy >/dev/null
    [[ $(box_campaign_state) == stopped ]] ||
        die "the campaign is running on the box; the demo would disturb its measurements. Try again when it ends"
    box 'cd ~/lab && OMP_NUM_THREADS=1 .venv/bin/python -m lab demo'
}

step_fetch() {
    resolve_region
    local campaign sums count
    campaign=$(need CAMPAIGN start)
    ssh_setup
    [[ $(box_campaign_state) == stopped ]] ||
        die "campaign $campaign is still running (lab/aws/steps.sh watch shows where); fetching now would disturb its measurements. Fetch when it ends"
    sums=$(box "cd ~/lab && test -d data/raw/$campaign && find data/raw/$campaign -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum") ||
        die "the box has no raw files for campaign $campaign"
    mkdir -p "$REPO/data/raw"
    scp -q -r -p "${SSH_OPTS[@]}" "$BOX_LOGIN@$BOX_IP:lab/data/raw/$campaign" "$REPO/data/raw/"
    local tool=(sha256sum)
    command -v sha256sum >/dev/null || tool=(shasum -a 256)
    (cd "$REPO" && printf '%s\n' "$sums" | "${tool[@]}" -c --quiet) ||
        die "some fetched files differ from the box's (above); run fetch again"
    count=$(printf '%s\n' "$sums" | grep -c .)
    state_set FETCHED "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    say "$count raw files of campaign $campaign are in data/raw/$campaign, sha256 checked. Next: lab/aws/steps.sh teardown"
}

step_teardown() {
    if [[ ! -f $STATE_FILE ]]; then
        say "nothing to tear down ($STATE_FILE does not exist)"
        return 0
    fi
    resolve_region
    local campaign instance_id group_id key_name key_file attempt
    campaign=$(state_get CAMPAIGN)
    instance_id=$(state_get INSTANCE_ID)
    if [[ -n $campaign && -n $instance_id && -z $(state_get FETCHED) && ${FORCE:-} != 1 ]]; then
        die "the raw files of campaign $campaign are not home yet: run \`lab/aws/steps.sh fetch\` first (or FORCE=1 to delete them with the box)"
    fi
    if [[ -n $instance_id ]]; then
        say "terminating $instance_id"
        aws_ ec2 terminate-instances --instance-ids "$instance_id" \
            --query 'TerminatingInstances[0].CurrentState.Name' --output text >/dev/null
        aws_ ec2 wait instance-terminated --instance-ids "$instance_id"
        state_del INSTANCE_ID PUBLIC_IP
        rm -f "$KNOWN_HOSTS"
    fi
    group_id=$(state_get GROUP_ID)
    if [[ -n $group_id ]]; then
        # The group can stay attached to the terminated box's network interface for a moment.
        for attempt in 1 2 3 4 5 6 7 8 9 10 11 12; do
            aws_ ec2 delete-security-group --group-id "$group_id" && break
            ((attempt < 12)) || die "could not delete security group $group_id; run teardown again"
            say "security group still in use; retrying in 10 s"
            sleep 10
        done
        state_del GROUP_ID
        say "deleted security group $group_id"
    fi
    key_name=$(state_get KEY_NAME)
    if [[ -n $key_name ]]; then
        aws_ ec2 delete-key-pair --key-name "$key_name" >/dev/null
        state_del KEY_NAME
        say "deleted key pair $key_name"
    fi
    key_file=$(state_get KEY_FILE)
    [[ -z $key_file ]] || rm -f "$key_file"
    rm -f "$KNOWN_HOSTS" "$SUMS_LOCAL" "$SUMS_BOX" "$STATE_FILE"
    # The default folder goes too once empty (a folder named by AWS_STATE_FILE stays).
    if [[ $STATE_DIR == "$DEFAULT_STATE_DIR" ]]; then
        rmdir "$STATE_DIR" 2>/dev/null || true
    fi
    say "everything the steps made in $REGION is deleted, including the key file and $STATE_FILE"
}

STEP=${1:-}
[[ $# -le 1 ]] || die "takes one argument, the step name (see --help)"
case $STEP in
check | access | launch | wait | copy | quiet | start | watch | demo | fetch | teardown)
    locate_state
    ;;
esac
case $STEP in
check) step_check ;;
access) step_access ;;
launch) step_launch ;;
wait) step_wait ;;
copy) step_copy ;;
quiet) step_quiet ;;
start) step_start ;;
watch) step_watch ;;
demo) step_demo ;;
fetch) step_fetch ;;
teardown) step_teardown ;;
-h | --help | help) usage ;;
"")
    usage >&2
    STEP=usage
    die "name a step: ${STEPS[*]}"
    ;;
*)
    STEP=usage
    die "unknown step '$1'; the steps are: ${STEPS[*]} (see --help)"
    ;;
esac
