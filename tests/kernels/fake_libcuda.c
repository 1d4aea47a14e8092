/*
 * A CUDA driver library (libcuda.so.1) that sees one device and does
 * nothing else: the first question of --backend auto says "a GPU is
 * here", so that the test can see what happens when the CUDA module is
 * missing on such a machine. Loaded through LD_LIBRARY_PATH.
 */
int cuInit(unsigned int flags);
int cuDeviceGetCount(int *count);

int cuInit(unsigned int flags) {
  (void)flags;
  return 0; /* CUDA_SUCCESS */
}

int cuDeviceGetCount(int *count) {
  *count = 1;
  return 0;
}
