/* Verifies a proof against a verifying key, both from files: OpenVM
 * stark-backend v2.0.1 proofs (`Proof::encode`, codec version 3) and keys in
 * OpenVM's pre-hash encoding (u32 3 || u64 length || postcard(vk), the
 * `.prevk.bin` files, and what the examples' --key-out write). Public API
 * only; runs on the CPU, no GPU needed.
 *
 *   glstark-verify [--quiet] KEY PROOF [PROOF ...]
 *
 * Exit codes: 0 every proof accepted; 1 some proof rejected (the message says
 * which check failed); 2 a file unreadable, a key or proof malformed, any
 * other failure, or bad usage. With several proofs the worst outcome wins. */
#include "example_common.h"

static void usage(void)
{
    fprintf(stderr, "usage: glstark-verify [--quiet] KEY PROOF [PROOF ...]\n"
                    "  KEY    a verifying key in OpenVM's pre-hash encoding (.prevk.bin; the examples' --key-out)\n"
                    "  PROOF  an OpenVM proof (Proof::encode bytes; the examples' --out)\n"
                    "exit: 0 all accepted, 1 a proof rejected, 2 unreadable or malformed input\n");
}

int main(int argc, char **argv)
{
    int quiet = 0, first = 1;
    if (argc > 1 && strcmp(argv[1], "--quiet") == 0) {
        quiet = 1;
        first = 2;
    }
    if (argc - first < 2 || argv[first][0] == '-') {
        usage();
        return 2;
    }
    const char *key_path = argv[first];
    uint8_t *key = NULL;
    size_t key_len = 0;
    char msg[2048];
    glstark_status st = glstark_read_file(key_path, &key, &key_len, msg, sizeof msg);
    if (st) {
        fprintf(stderr, "%s: cannot read the key: %s\n", key_path, msg);
        return 2;
    }
    glstark_verifying_key *vk = NULL;
    st = glstark_verifying_key_decode(key, key_len, &vk, msg, sizeof msg);
    glstark_free(key);
    if (st) {
        fprintf(stderr, "%s: not a verifying key (%s): %s\n", key_path, glstark_status_name(st), msg);
        return 2;
    }
    int worst = 0;
    for (int i = first + 1; i < argc; i++) {
        int rc = ex_verify_file(vk, argv[i], quiet);
        if (rc > worst)
            worst = rc;
    }
    glstark_verifying_key_destroy(vk);
    return worst;
}
