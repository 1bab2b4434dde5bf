# Sourced by scripts/test.sh and scripts/php-fpm-test.sh.
#
# apt_install_without_services [--no-install-recommends] PACKAGE...: apt-get
# update and install, quietly, with no service started. Debian starts a
# package's service on install (nginx on 0.0.0.0:80, redis-server, php-fpm);
# the tests start their own, so a policy-rc.d forbids that meanwhile (where
# the machine has none already). Returns apt-get's status.
apt_install_without_services() {
    local sudo="" policy=/usr/sbin/policy-rc.d own_policy="" status=0
    if [ "$(id -u)" != 0 ]; then sudo=sudo; fi
    if [ ! -e "$policy" ]; then
        printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
        $sudo chmod 755 "$policy"
        own_policy=1
    fi
    $sudo apt-get update -qq || status=$?
    if [ "$status" = 0 ]; then
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null || status=$?
    fi
    if [ -n "$own_policy" ]; then $sudo rm -f "$policy"; fi
    return "$status"
}
