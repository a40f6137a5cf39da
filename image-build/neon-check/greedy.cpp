// Greedy decode with llama.cpp's C API: the same source runs on x86 and on emulated Pi cores, and the token ids
// are compared. Usage: greedy MODEL PROMPT N_TOKENS  -> token ids on stdout (one per line), system info on stderr.
#include "llama.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char ** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s MODEL PROMPT N_TOKENS\n", argv[0]);
        return 64;
    }
    const std::string prompt = argv[2];
    const int n_predict = std::atoi(argv[3]);
    ggml_backend_load_all();  // with runtime dispatch this picks the CPU variant the core supports
    llama_model * model = llama_model_load_from_file(argv[1], llama_model_default_params());
    if (model == nullptr) {
        return 66;
    }
    const llama_vocab * vocab = llama_model_get_vocab(model);
    const int n_prompt = -llama_tokenize(vocab, prompt.c_str(), prompt.size(), nullptr, 0, true, true);
    std::vector<llama_token> tokens(n_prompt);
    llama_tokenize(vocab, prompt.c_str(), prompt.size(), tokens.data(), tokens.size(), true, true);

    llama_context_params cparams = llama_context_default_params();
    cparams.n_ctx = n_prompt + n_predict;
    cparams.n_batch = n_prompt;
    cparams.n_threads = 2;
    cparams.n_threads_batch = 2;
    llama_context * ctx = llama_init_from_model(model, cparams);
    llama_sampler * sampler = llama_sampler_chain_init(llama_sampler_chain_default_params());
    llama_sampler_chain_add(sampler, llama_sampler_init_greedy());

    llama_batch batch = llama_batch_get_one(tokens.data(), tokens.size());
    llama_token token = 0;
    for (int i = 0; i < n_predict; i++) {
        if (llama_decode(ctx, batch) != 0) {
            return 70;
        }
        token = llama_sampler_sample(sampler, ctx, -1);
        if (llama_vocab_is_eog(vocab, token)) {
            break;
        }
        std::printf("%d\n", token);
        batch = llama_batch_get_one(&token, 1);
    }
    std::fprintf(stderr, "%s\n", llama_print_system_info());
    llama_sampler_free(sampler);
    llama_free(ctx);
    llama_model_free(model);
    return 0;
}
