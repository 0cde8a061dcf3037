/* The asset container: arena-owned arrays plus the objects it frees. */
#include "asset_internal.h"

typedef struct block {
    struct block *next;
    /* payload follows, aligned */
} block;

#define BLOCK_HEADER ((sizeof(block) + 15) / 16 * 16)

sinew_asset *sinew__asset_new(const char *name, const sinew_options *options)
{
    sinew_allocator alloc = sinew__allocator(options);
    sinew_asset *a = sinew__alloc(&alloc, sizeof *a);
    if (!a) return NULL;
    memset(a, 0, sizeof *a);
    a->allocator_ = alloc;
    a->name = sinew__asset_strdup(a, name ? name : "");
    if (!a->name) {
        sinew__free(&alloc, a);
        return NULL;
    }
    return a;
}

void *sinew__asset_alloc(sinew_asset *a, size_t count, size_t size)
{
    if (size && count > (SIZE_MAX - BLOCK_HEADER) / size) return NULL;
    size_t bytes = count * size;
    block *b = sinew__alloc(&a->allocator_, BLOCK_HEADER + bytes);
    if (!b) return NULL;
    b->next = a->blocks_;
    a->blocks_ = b;
    unsigned char *payload = (unsigned char *)b + BLOCK_HEADER;
    memset(payload, 0, bytes);
    return payload;
}

char *sinew__asset_strdup(sinew_asset *a, const char *s)
{
    size_t n = strlen(s) + 1;
    char *copy = sinew__asset_alloc(a, n, 1);
    if (copy) memcpy(copy, s, n);
    return copy;
}

void sinew_asset_free(sinew_asset *a)
{
    if (!a) return;
    for (int i = 0; i < a->mesh_count; ++i) sinew_skin_free((sinew_skin *)a->meshes[i].skin);
    for (int i = 0; i < a->clip_count; ++i) sinew_clip_free((sinew_clip *)a->clips[i]);
    sinew_skeleton_free((sinew_skeleton *)a->skeleton);
    sinew_allocator alloc = a->allocator_;
    for (block *b = a->blocks_; b;) {
        block *next = b->next;
        sinew__free(&alloc, b);
        b = next;
    }
    sinew__free(&alloc, a);
}

const sinew_clip *sinew_asset_find_clip(const sinew_asset *a, const char *name)
{
    if (!a || !name) return NULL;
    for (int i = 0; i < a->clip_count; ++i)
        if (strcmp(a->clips[i]->name, name) == 0) return a->clips[i];
    return NULL;
}
