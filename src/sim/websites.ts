// The websites of the simulator's tasks (its datasets and its dumped episodes). Pure.
export const WEBSITES = [
  'amazon.com',
  'github.com',
  'wikipedia.org',
  'booking.com',
  'arxiv.org',
  'imdb.com',
  'espn.com',
  'allrecipes.com',
];
