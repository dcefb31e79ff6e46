import { render } from 'preact';
import { configureApi } from './api.ts';
import { App } from './app.tsx';
import { loadConfig } from './config.ts';
import './console.css';

const root = document.getElementById('app') as HTMLElement;

loadConfig()
  .then((config) => {
    configureApi(config);
    render(<App config={config} />, root);
  })
  .catch((error: unknown) => {
    render(
      <p class="error" role="alert">
        {error instanceof Error ? error.message : String(error)}
      </p>,
      root,
    );
  });
