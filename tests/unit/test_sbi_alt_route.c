/* Alternate routing by binding indication (gateways/sbi/sbi_alt_route.h) over the real SBI
 * client, against tests/peers/pcf_sim.py standalone on loopback: three PCFs of one set and a
 * strict discovery NRF, listed second in the NRF list behind one nobody listens on. */
#include <jansson.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "gateways/sbi/nf_discovery.h"
#include "gateways/sbi/sbi_alt_route.h"
#include "tests/unit/sbi_call_fixtures.h"
#include "tests/unit/test_util.h"

#define SET "set1.pcfset.5gc.mnc001.mcc001"
#define PATH "/npcf-custom-binding/v1/sessions/alt"

static char dir[64], dead[64], nrfs[256], pcf_id[3][64];
static pid_t sim;
static bsf_sbi_client_t *client;
static bsf_nf_discovery_t *disc;
static bsf_nrf_health_t *health;
static bsf_sbi_alt_route_t *alt;

static int dead_fd = -1;

/* A loopback port nobody listens on: bound and never listening for the whole run (a connect
 * is refused), so that no other socket (the simulator's listeners, a test running beside
 * this one) can be given it, as it could once closed. */
static int dead_port(void)
{
    dead_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    if (dead_fd < 0 || bind(dead_fd, (struct sockaddr *)&a, sizeof a) ||
        getsockname(dead_fd, (struct sockaddr *)&a, &len))
        return -1;
    return ntohs(a.sin_port);
}

static int read_info(const char *path)
{
    json_t *j = json_load_file(path, 0, NULL);
    if (!j)
        return -1;
    snprintf(nrfs, sizeof nrfs, "%s\n%s", dead,
             json_string_value(json_object_get(j, "discovery")));
    for (size_t i = 0; i < 3; i++)
        snprintf(pcf_id[i], sizeof pcf_id[i], "%s",
                 json_string_value(json_object_get(
                     json_array_get(json_object_get(j, "pcfs"), i), "id")));
    json_decref(j);
    return 0;
}

static int start_sim(void)
{
    snprintf(dir, sizeof dir, "/tmp/test_sbi_alt_route.XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    char info[128];
    snprintf(info, sizeof info, "%s/info.json", dir);
    sim = fork();
    if (sim == 0) {
        execl("/usr/bin/python3", "python3", BSF_PCF_SIM, "--info-file", info, (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 600; i++) {
        if (access(info, R_OK) == 0)
            return read_info(info);
        usleep(50000);
    }
    return -1;
}

static int setup(void **state)
{
    (void)state;
    snprintf(dead, sizeof dead, "http://127.0.0.1:%d", dead_port());
    if (start_sim())
        return -1;
    bsf_sbi_client_config_t cc = {.nf_instance_id = "5a1c6a4e-0000-4000-8000-0000000000b5"};
    char err[200];
    if (bsf_sbi_client_start(&cc, &client, err, sizeof err))
        return -1;
    bsf_nrf_health_config_t hc = {.uris = nrfs, .unhealthy_ms = 60000, .primary_retries = 2,
                                  .alternate_retries = 1};
    if (!(health = bsf_nrf_health_create(&hc, err, sizeof err)))
        return -1;
    bsf_nf_discovery_config_t dc = {.nrfs = health, .requester_nf_instance_id =
                                    cc.nf_instance_id, .timeout_ms = 2000, .cache_size = 8};
    disc = bsf_nf_discovery_create(client, &dc);
    bsf_sbi_alt_config_t ac = {.enabled = true, .max_alternates = 2, .on_timeout = true,
                               .on_connect_error = true};
    alt = bsf_sbi_alt_route_create(client, disc, &ac, err, sizeof err);
    return disc && alt ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    bsf_sbi_client_stop(client);
    bsf_sbi_alt_route_free(alt);
    bsf_nf_discovery_free(disc);
    bsf_nrf_health_free(health);
    kill(sim, SIGTERM);
    int status = 0;
    waitpid(sim, &status, 0);
    close(dead_fd);
    /* the sims exit 1 at once when they saw a request that breaks the spec */
    return tu_dir_remove(dir) == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 1) ? 0 : -1;
}

/* A GET of PATH at the dead primary with this routing binding. */
static sc_call_t run(const char *routing_binding)
{
    char uri[160], err[200];
    snprintf(uri, sizeof uri, "%s%s", dead, PATH);
    sc_call_t c;
    sc_call_init(&c);
    bsf_sbi_request_t q = {.method = "GET", .uri = uri, .timeout_ms = 4000, .priority = -1,
                           .callback = "Nbsf_Management_myNotification",
                           .routing_binding = routing_binding};
    bsf_sbi_alt_target_t t = {.nf_type = "PCF"};
    if (bsf_sbi_alt_route_submit(alt, &q, &t, sc_call_done, &c, err, sizeof err))
        fail_msg("submit: %s", err);
    sc_call_wait(&c);
    return c;
}

static void test_a_set_binding_finds_an_alternate_of_that_set(void **state)
{
    (void)state;
    sc_call_t c = run("bl=nfset; nfset=" SET);
    assert_int_equal(c.result, BSF_SBI_OK);
    assert_int_equal(c.status, 200);
    assert_int_equal(c.alternates, 1);
    assert_true(strncmp(c.server, "PCF-", 4) == 0);
}

static void test_the_bound_instance_is_not_an_alternate(void **state)
{
    (void)state;
    char b[200], not_it[80];
    snprintf(b, sizeof b, "bl=nfinstance; nfinst=%s; nfset=" SET, pcf_id[0]);
    snprintf(not_it, sizeof not_it, "PCF-%s", pcf_id[0]);
    sc_call_t c = run(b);
    assert_int_equal(c.status, 200);
    assert_int_equal(c.alternates, 1);
    assert_string_not_equal(c.server, not_it);
}

static void test_an_instance_binding_without_a_set_has_no_alternate(void **state)
{
    (void)state;
    char b[200];
    snprintf(b, sizeof b, "bl=nfinstance; nfinst=%s", pcf_id[1]);
    sc_call_t c = run(b);
    assert_int_equal(c.result, BSF_SBI_ERR_CONNECT);
    assert_int_equal(c.alternates, 0);
}

static void test_an_unknown_set_ends_with_why(void **state)
{
    (void)state;
    sc_call_t c = run("bl=nfset; nfset=set9.pcfset.5gc.mnc001.mcc001");
    assert_int_equal(c.result, BSF_SBI_ERR_CONNECT);
    assert_int_equal(c.alternates, 0);
    assert_non_null(strstr(c.error, "no alternate producer: none left among the 0 PCF"));
}

static void test_one_nrf_request_per_query_and_the_dead_nrf_skipped(void **state)
{
    (void)state;
    bsf_nf_discovery_stats_t s;
    bsf_nf_discovery_stats(disc, &s);
    /* two queries (SET, set9): the first asked the dead primary, which is then unhealthy
     * (nrf_health.h), and the live one; the second asked the live one only; the second SET
     * search came from the cache */
    assert_int_equal(s.searches, 3);
    assert_int_equal(s.cache_hits, 1);
    assert_int_equal(s.nrf_requests, 3);
    assert_int_equal(s.nrf_failovers, 1);
    assert_false(bsf_nrf_health_healthy(health, 0));
    assert_true(bsf_nrf_health_healthy(health, 1));
    assert_int_equal(bsf_nrf_health_pick(health, 0), 1);
    bsf_sbi_alt_route_stats_t a;
    bsf_sbi_alt_route_stats(alt, &a);
    assert_int_equal(a.alternates_sent, 2);
    assert_int_equal(a.answered_by_alternate, 2);
    assert_int_equal(a.no_alternate, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_set_binding_finds_an_alternate_of_that_set),
        cmocka_unit_test(test_the_bound_instance_is_not_an_alternate),
        cmocka_unit_test(test_an_instance_binding_without_a_set_has_no_alternate),
        cmocka_unit_test(test_an_unknown_set_ends_with_why),
        cmocka_unit_test(test_one_nrf_request_per_query_and_the_dead_nrf_skipped),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
