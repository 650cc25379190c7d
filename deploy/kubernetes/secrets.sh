#!/usr/bin/env bash
# Prints the CURVE key Secrets deploy/kubernetes mounts, one per service (reactive-login-<service>-keys),
# as YAML on stdout: each service's key pairs and allowed_clients, created by `--init` in a temporary
# directory, with the public keys exchanged exactly as the local stack does (deploy/local/stack.sh keys).
# Needs the executables (BIN_DIR, default .build/release) and kubectl (no cluster: --dry-run=client).
#
#   BIN_DIR=.build/release deploy/kubernetes/secrets.sh > secrets.yaml
#   kubectl apply -n reactive-login -f secrets.yaml && shred -u secrets.yaml
#
# KEYS_DIR keeps the generated state directories there instead of deleting them (back them up: a new
# run makes new keys). STACK_SERVICES picks the services, as for the stack.
set -eu -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
services=${STACK_SERVICES:-auth validation heroes gateway}
if [ -n "${KEYS_DIR:-}" ]; then
    directory=$KEYS_DIR
else
    directory=$(mktemp -d "${TMPDIR:-/tmp}/reactive-login-keys.XXXXXX")
    trap 'rm -rf "$directory"' EXIT
fi
STACK_DIR=$directory STACK_SERVICES=$services "$here/../local/stack.sh" keys >&2
first=1
for name in $services; do
    files=()
    for file in "$directory/$name"/*; do
        case $(basename "$file") in
        curve.key | curve.pub | client.key | client.pub | allowed_clients | auth.pub | validation.pub | heroes.pub)
            files+=("--from-file=$file")
            ;;
        esac
    done
    [ $first = 1 ] || echo "---"
    first=0
    kubectl create secret generic "reactive-login-$name-keys" "${files[@]}" --dry-run=client -o yaml
done
