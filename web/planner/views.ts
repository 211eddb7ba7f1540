// The page's views, in the order of the switcher in the header. Each view is a section of index.html
// marked data-view-body="<id>"; main.ts shows the one picked and hides the others. A later view (a
// simulator in web/simulate*.ts, say) adds its entry here and its section in index.html.
export type View = { id: string; label: string };

export const VIEWS: View[] = [
  { id: 'cluster', label: 'Cluster' },
  { id: 'node', label: 'Node' },
];
