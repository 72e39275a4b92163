// gone waits up to 5 s for the process pid to no longer exist.
export async function gone(pid) {
  for (let i = 0; i < 50; i++) {
    try {
      process.kill(pid, 0);
    } catch (e) {
      if (e.code === 'ESRCH') return true;
      throw e;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}
