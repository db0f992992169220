// Sorting each line of a contiguous [lines, len] input (src/runtime/ops/sort.rs):
// merge passes over runs of width 1, 2, 4, ... An element's place in the merged
// pair of runs is its place in its own run plus how many of the other run go
// before it, found by binary search: elements of the first run go before equal
// ones of the second, so the sort is stable and every launch shape gives the
// simulator's order. NaN sorts above every number.

__device__ __forceinline__ int sort_less(bool a, bool b) { return (int)a < (int)b; }
__device__ __forceinline__ int sort_less(u8 a, u8 b) { return a < b; }
__device__ __forceinline__ int sort_less(i8 a, i8 b) { return a < b; }
__device__ __forceinline__ int sort_less(i16 a, i16 b) { return a < b; }
__device__ __forceinline__ int sort_less(int a, int b) { return a < b; }
__device__ __forceinline__ int sort_less(i64 a, i64 b) { return a < b; }
template <class T> __device__ __forceinline__ int sort_less(T a, T b) {
    double x = to_f64(a), y = to_f64(b);
    return (x == x && y != y) || x < y;
}

// Whether `a` goes strictly before `b`.
template <class T> __device__ __forceinline__ int sort_before(T a, T b, int descending) {
    return descending ? sort_less(b, a) : sort_less(a, b);
}

template <class T> __device__ __forceinline__ void sort_pass(const SortArgs& p) {
    const T* in = (const T*)p.in_v;
    T* out = (T*)p.out_v;
    const i64 w = p.width;
    GRID_LOOP(e, p.lines * p.len) {
        i64 line = e / p.len, k = e % p.len;
        const T* row = in + line * p.len;
        i64 start = k / (2 * w) * (2 * w);
        i64 mid = start + w < p.len ? start + w : p.len;
        i64 end = start + 2 * w < p.len ? start + 2 * w : p.len;
        T x = row[k];
        i64 dest;
        if (k < mid) {
            // Of the second run, those strictly before x.
            i64 lo = mid, hi = end;
            while (lo < hi) {
                i64 m = lo + (hi - lo) / 2;
                if (sort_before(row[m], x, p.descending)) lo = m + 1;
                else hi = m;
            }
            dest = k + (lo - mid);
        } else {
            // Of the first run, those not after x.
            i64 lo = start, hi = mid;
            while (lo < hi) {
                i64 m = lo + (hi - lo) / 2;
                if (!sort_before(x, row[m], p.descending)) lo = m + 1;
                else hi = m;
            }
            dest = (k - mid) + lo;
        }
        out[line * p.len + dest] = x;
        p.out_i[line * p.len + dest] = p.first ? k : p.in_i[e];
    }
}

#define SORT(dt, T) \
    extern "C" __global__ void sort_pass_##dt(const __grid_constant__ SortArgs p) { sort_pass<T>(p); }
FOR_ALL(SORT)
