import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { SessionProvider } from './session';
import { Shell } from './Shell';
import { OverviewPage } from './pages/Overview';
import { KeysPage } from './pages/Keys';
import { TasksPage, TaskDetailPage } from './pages/Tasks';
import { PlaygroundPage } from './pages/Playground';
import { BillingPage } from './pages/Billing';
import { DocumentsPage, DocumentPage } from './pages/Documents';
import { AdminPage } from './pages/Admin';
import { AccountPage } from './pages/Account';
import './styles.css';

const queryClient = new QueryClient({ defaultOptions: { queries: { retry: (n, err) => n < 1 && (err as { status?: number }).status === undefined, staleTime: 5_000, refetchOnWindowFocus: false } } });

const router = createBrowserRouter(
  [
    {
      path: '/',
      element: <Shell />,
      children: [
        { index: true, element: <OverviewPage /> },
        { path: 'keys', element: <KeysPage /> },
        { path: 'tasks', element: <TasksPage /> },
        { path: 'tasks/:taskNumber', element: <TaskDetailPage /> },
        { path: 'playground', element: <PlaygroundPage /> },
        { path: 'billing', element: <BillingPage /> },
        { path: 'documents', element: <DocumentsPage /> },
        { path: 'documents/:id', element: <DocumentPage /> },
        { path: 'admin', element: <AdminPage /> },
        { path: 'account', element: <AccountPage /> },
      ],
    },
  ],
  { basename: '/console' },
);

const theme = localStorage.getItem('tollgate.theme');
if (theme === 'dark' || theme === 'light') document.documentElement.dataset.theme = theme;

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <SessionProvider>
        <RouterProvider router={router} />
      </SessionProvider>
    </QueryClientProvider>
  </StrictMode>,
);
