import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// Served by the gateway under /console; every asset is bundled (nothing from a CDN).
export default defineConfig({
  base: '/console/',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 800 },
});
