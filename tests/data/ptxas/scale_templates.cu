template <typename T, int N>
__global__ void scale(T* out, const T* in, T a) {
    __shared__ T tile[N];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = in[i];
    __syncthreads();
    out[i] = a * tile[(threadIdx.x + 1) % N];
}
template __global__ void scale<float, 256>(float*, const float*, float);
template __global__ void scale<double, 8192>(double*, const double*, double);
